#!/bin/sh
# Renders the nginx site from its template with exactly the template's own variables: a bare
# `envsubst` would replace nginx's $http_host, $remote_addr and $request_id by nothing too, and
# nginx would refuse the result.
#   sh deploy/scripts/render-nginx.sh > /etc/nginx/conf.d/gatehouse.conf && nginx -t
set -eu
VARIABLES='AUTH_SERVER_NAME API_SERVER_NAME APP_SERVER_NAME AUTH_LISTEN API_LISTEN APP_LISTEN TLS_CERT TLS_KEY TLS_PROTOCOLS AUTH_1 AUTH_2 API_1 API_2 APP_1 ACCESS_LOG'
list=''
for name in $VARIABLES; do
  eval "value=\${$name:-}"
  [ -n "$value" ] || { echo "render-nginx: $name is not set" >&2; exit 1; }
  list="$list \${$name}"
done
envsubst "$list" < "${1:-deploy/nginx/gatehouse.conf.template}"
