#!/bin/sh
# Adds a user whose password is read from standard input (never from the command line); they
# enroll their second factor at their first sign-in.
#   printf '%s\n' "$PASSWORD" | sh deploy/scripts/add-user.sh alice alice@example.com Alice admins
set -eu
[ "$#" -eq 4 ] || { echo "add-user: USERNAME EMAIL NAME GROUPS (comma-separated)" >&2; exit 1; }
node apps/auth/dist/cli/main.js user add "$1" --email "$2" --name "$3" --groups "$4" --password-stdin
