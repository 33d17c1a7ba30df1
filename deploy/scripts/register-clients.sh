#!/bin/sh
# Registers the relying party (CLIENT_ID, at CLIENT_URL) and the API's own client, and prints
# their secrets as NAME=value lines (shown once; nothing else keeps them):
#   sh deploy/scripts/register-clients.sh >> /etc/gatehouse/gatehouse.env
# The relying party's back-channel logout URI (logout tokens with sid, posted by the auth servers)
# is CLIENT_BACKCHANNEL_LOGOUT_URL, by default $CLIENT_URL/backchannel-logout.
set -eu
: "${CLIENT_ID:?CLIENT_ID is not set}" "${CLIENT_URL:?CLIENT_URL is not set}"
authctl() { node apps/auth/dist/cli/main.js "$@"; }
secret_of() { node -e 'let s="";process.stdin.on("data",(c)=>s+=c).on("end",()=>process.stdout.write(JSON.parse(s).client_secret))'; }
app=$(authctl client add "$CLIENT_ID" --first-party --redirect-uri "$CLIENT_URL/callback" --post-logout-redirect-uri "$CLIENT_URL/signed-out" \
  --backchannel-logout-uri "${CLIENT_BACKCHANNEL_LOGOUT_URL:-$CLIENT_URL/backchannel-logout}" --backchannel-logout-session-required --json | secret_of)
api=$(authctl client add "${API_INTROSPECTION_CLIENT_ID:-api}" --grant client_credentials --json | secret_of)
echo "CLIENT_SECRET=$app"
echo "API_INTROSPECTION_CLIENT_SECRET=$api"
