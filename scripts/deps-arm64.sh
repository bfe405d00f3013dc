#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What building and testing pitrace for arm64 needs: scripts/deps-cross.sh arm64.
exec "$(dirname "$0")/deps-cross.sh" arm64 "$@"
