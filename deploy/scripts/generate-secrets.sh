#!/bin/sh
# Prints the generated secrets as NAME=value lines, to append to the environment file:
#   sh deploy/scripts/generate-secrets.sh >> /etc/gatehouse/gatehouse.env
# One recipe for every secret: 32 random bytes, base64url without padding.
set -eu
secret() { openssl rand -base64 32 | tr '+/' '-_' | tr -d '='; }
echo "AUTH_ENCRYPTION_KEYS=$(secret)"
echo "AUTH_COOKIE_KEYS=$(secret)"
echo "CLIENT_COOKIE_KEYS=$(secret)"
echo "DB_PASSWORD=$(secret)"
