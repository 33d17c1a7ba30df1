#!/bin/sh
# With a file (deploy/env.example): prints it with every empty secret line (DB_PASSWORD=,
# AUTH_ENCRYPTION_KEYS=, AUTH_COOKIE_KEYS=, CLIENT_COOKIE_KEYS=) filled with a fresh secret and
# each ${DB_PASSWORD} replaced by the one it made, as the environment file to edit:
#   sh deploy/scripts/generate-secrets.sh deploy/env.example > /etc/gatehouse/gatehouse.env
# Without one: prints those four secrets as NAME=value lines (a spare set, e.g. a new key).
# One recipe for every secret: 32 random bytes, base64url without padding (safe in URLs and sed).
set -eu
secret() { openssl rand -base64 32 | tr '+/' '-_' | tr -d '='; }
if [ "$#" -eq 0 ]; then
  for name in DB_PASSWORD AUTH_ENCRYPTION_KEYS AUTH_COOKIE_KEYS CLIENT_COOKIE_KEYS; do echo "$name=$(secret)"; done
  exit 0
fi
[ "$#" -eq 1 ] && [ -r "$1" ] || { echo "generate-secrets: [ENV_FILE] (deploy/env.example)" >&2; exit 1; }
db_password=$(secret)
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    '#'*) printf '%s\n' "$line" ;;
    DB_PASSWORD=) echo "DB_PASSWORD=$db_password" ;;
    AUTH_ENCRYPTION_KEYS= | AUTH_COOKIE_KEYS= | CLIENT_COOKIE_KEYS=) echo "$line$(secret)" ;;
    *'${DB_PASSWORD}'*) printf '%s\n' "$line" | sed "s/\${DB_PASSWORD}/$db_password/g" ;;
    *) printf '%s\n' "$line" ;;
  esac
done < "$1"
