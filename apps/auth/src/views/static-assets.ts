/** Same-origin assets the pages load (the CSP allows nothing else). */
export const STYLESHEET = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f3f4f6;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827}
.card{background:#fff;width:min(420px,94vw);padding:2rem;border-radius:12px;box-shadow:0 4px 24px rgba(0,0,0,.08)}
.brand{font-weight:700;color:#4f46e5;margin:0 0 1rem;letter-spacing:.04em}
h1{font-size:1.4rem;margin:.2rem 0 .6rem}
label{display:block;margin:.8rem 0 .3rem;font-weight:600}
input{width:100%;padding:.6rem .7rem;border:1px solid #d1d5db;border-radius:8px;font-size:1rem}
button{margin-top:1.2rem;width:100%;padding:.7rem;border:0;border-radius:8px;background:#4f46e5;color:#fff;font-size:1rem;font-weight:600;cursor:pointer}
.error{color:#b91c1c;background:#fef2f2;border:1px solid #fecaca;padding:.5rem .7rem;border-radius:8px}
.muted{color:#6b7280;font-size:.9rem}
.qr svg{width:200px;height:200px;display:block;margin:0 auto}
code{word-break:break-all;background:#f3f4f6;padding:.15rem .3rem;border-radius:4px}
`;

export const LOGOUT_SCRIPT = `document.addEventListener('DOMContentLoaded',function(){var b=document.getElementById('logout-confirm');if(b){b.click();}});`;
