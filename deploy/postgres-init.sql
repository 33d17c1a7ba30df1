-- The API's and the relying party's databases, next to `auth` (POSTGRES_DB).
CREATE DATABASE api;
CREATE DATABASE client;
