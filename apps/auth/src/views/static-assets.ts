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
h2{font-size:1.1rem;margin:1.2rem 0 .4rem}
.recovery-codes ol{columns:2;column-gap:2.2rem;padding-left:1.6rem;margin:.4rem 0}
.recovery-codes li{margin:.15rem 0}
.recovery-codes code{white-space:nowrap;word-break:normal;font-size:.76rem}
code{word-break:break-all;background:#f3f4f6;padding:.15rem .3rem;border-radius:4px}
button.secondary{background:#fff;color:#4f46e5;border:1px solid #c7d2fe}
button.danger{background:#b91c1c}
.alt-method{margin-top:1.2rem}
details summary{cursor:pointer;color:#4f46e5;font-weight:600}
.push-number{font-size:3.2rem;font-weight:700;text-align:center;letter-spacing:.1em;margin:.4rem 0}
.choices{display:flex;gap:.6rem}
.choices button{font-size:1.6rem}
.request{border:1px solid #e5e7eb;border-radius:10px;padding:1rem;margin:1rem 0}
.request dl{display:grid;grid-template-columns:auto 1fr;gap:.2rem .8rem;margin:.4rem 0;font-size:.9rem}
.request dt{color:#6b7280}
.request dd{margin:0;word-break:break-word}
.codes{font-family:ui-monospace,monospace;font-size:1.05rem;padding-left:1.8rem;line-height:1.9}
.codes code{word-break:normal;white-space:nowrap}
.devices{list-style:none;padding:0}
.devices li{display:flex;justify-content:space-between;align-items:center;gap:.6rem;border-bottom:1px solid #e5e7eb;padding:.5rem 0}
.devices li form button{margin:0;width:auto;padding:.35rem .8rem;font-size:.9rem}
[hidden]{display:none!important}
`;

export const LOGOUT_SCRIPT = `document.addEventListener('DOMContentLoaded',function(){var b=document.getElementById('logout-confirm');if(b){b.click();}});`;

/**
 * The push WAITING page's poller: asks the state every 2 s (same origin, JSON); once the push is
 * no longer PENDING it opens the poll URL, a top-level navigation that completes the login
 * (302 to the client) or shows why it did not.
 */
export const PUSH_WAIT_SCRIPT = `document.addEventListener('DOMContentLoaded',function(){
var box=document.getElementById('push-wait');if(!box){return;}
var statusUrl=box.getAttribute('data-status-url');var pollUrl=box.getAttribute('data-poll-url');
function tick(){fetch(statusUrl,{headers:{accept:'application/json'},credentials:'same-origin',cache:'no-store'})
.then(function(r){return r.ok?r.json():{state:'ERROR'};})
.then(function(b){if(b&&b.state==='PENDING'){setTimeout(tick,2000);}else{window.location.assign(pollUrl);}})
.catch(function(){setTimeout(tick,4000);});}
setTimeout(tick,1500);});`;
