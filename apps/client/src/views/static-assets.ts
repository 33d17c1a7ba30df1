/** The one same-origin asset the pages load (the CSP allows nothing else, and no script at all). */
export const STYLESHEET = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;background:#f3f4f6;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827}
.bar{display:flex;gap:1rem;align-items:baseline;padding:.8rem 1.5rem;background:#111827;color:#f9fafb}
.bar .app{font-weight:700;letter-spacing:.04em}
.bar .muted{color:#9ca3af}
.card{background:#fff;width:min(760px,94vw);margin:2rem auto;padding:2rem;border-radius:12px;box-shadow:0 4px 24px rgba(0,0,0,.08)}
h1{font-size:1.5rem;margin:.2rem 0 1rem}
h2{font-size:1.15rem;margin:1.6rem 0 .6rem;text-transform:capitalize}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0}
.facts dt{font-weight:600;color:#374151}
.facts dd{margin:0}
table{width:100%;border-collapse:collapse;margin:.4rem 0 1rem}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e5e7eb}
form.inline{display:flex;gap:.6rem;align-items:end;flex-wrap:wrap}
form.inline label{display:flex;flex-direction:column;font-weight:600;font-size:.9rem}
input{padding:.5rem .6rem;border:1px solid #d1d5db;border-radius:8px;font-size:1rem}
button,.button{display:inline-block;padding:.55rem 1rem;border:0;border-radius:8px;background:#4f46e5;color:#fff;font-size:1rem;font-weight:600;cursor:pointer;text-decoration:none}
button.small{padding:.3rem .7rem;font-size:.85rem}
button.danger{background:#dc2626}
button.secondary{background:#374151}
form.logout{margin-top:2rem}
.error{color:#b91c1c;background:#fef2f2;border:1px solid #fecaca;padding:.5rem .7rem;border-radius:8px}
.notice{color:#065f46;background:#ecfdf5;border:1px solid #a7f3d0;padding:.5rem .7rem;border-radius:8px}
.muted{color:#6b7280;font-size:.9rem}
code{word-break:break-all;background:#f3f4f6;padding:.1rem .3rem;border-radius:4px}
`;
