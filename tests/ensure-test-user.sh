#!/usr/bin/env bash
# Creates the unprivileged user the confinement tests run as, when it does not exist yet.
set -eu
user=cordon-test
id -u "$user" >/dev/null 2>&1 && exit 0
useradd --create-home --user-group --shell /bin/bash "$user"
