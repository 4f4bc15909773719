#!/usr/bin/env bash
# Creates the unprivileged user the confinement tests run as (cordon-test, or the name given),
# when it does not exist yet.
set -eu
user=${1:-cordon-test}
case $user in cordon-test*) ;; *) echo "ensure-test-user.sh: '$user' is not a cordon-test* name" >&2; exit 2 ;; esac
id -u "$user" >/dev/null 2>&1 && exit 0
useradd --create-home --user-group --shell /bin/bash "$user"
