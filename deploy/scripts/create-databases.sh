#!/bin/sh
# Creates the role the apps connect as and one database per app, owned by that role (so its
# migrations may create tables; it needs no other privilege, and no superuser). Run it as a
# PostgreSQL superuser (PGHOST, PGUSER… as psql reads them), with the environment file loaded
# (DB_ROLE, DB_PASSWORD: deploy/env.example); running it again changes nothing, and with other
# names it creates an empty database to restore into (deploy/README.md section 7).
#   sh deploy/scripts/create-databases.sh auth api client
set -eu
: "${DB_ROLE:?DB_ROLE is not set}" "${DB_PASSWORD:?DB_PASSWORD is not set}"
[ "$#" -gt 0 ] || { echo "create-databases: name the databases to create (auth api client)" >&2; exit 1; }
psql -v ON_ERROR_STOP=1 -q -v role="$DB_ROLE" -v password="$DB_PASSWORD" <<'SQL'
SELECT format('CREATE ROLE %I LOGIN PASSWORD %L', :'role', :'password')
WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role') \gexec
SQL
for database in "$@"; do
  psql -v ON_ERROR_STOP=1 -q -v db="$database" -v role="$DB_ROLE" <<'SQL'
SELECT format('CREATE DATABASE %I OWNER %I', :'db', :'role')
WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'db') \gexec
SQL
done
