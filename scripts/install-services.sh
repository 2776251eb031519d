#!/bin/sh
# Install Debian's PostgreSQL, Redis and nginx (the reverse proxy of
# docs/deploy.md) for the tests of the multi-process server (the suite
# starts its own throwaway instances on free loopback ports; nothing here
# starts a service). Idempotent; as with
# install-chromium.sh, a machine without root or apt-get only gets a note
# and the tests that need a server skip with the reason.
set -eu

have_pg() { ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }
have_redis() { command -v redis-server >/dev/null 2>&1; }
have_nginx() { command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; }

if have_pg && have_redis && have_nginx; then
    exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-services: PostgreSQL, redis-server or nginx is missing; install the" \
         "Debian packages postgresql, redis-server and nginx to run the multi-process tests" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends postgresql redis-server nginx >/dev/null
# Debian's packages start their own services; the tests never use them.
if command -v service >/dev/null 2>&1; then
    service redis-server stop >/dev/null 2>&1 || true
    service postgresql stop >/dev/null 2>&1 || true
    service nginx stop >/dev/null 2>&1 || true
fi
echo "install-services: PostgreSQL, redis-server and nginx installed"
