#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What building and testing pitrace for ppc64le needs: scripts/deps-cross.sh ppc64le.
exec "$(dirname "$0")/deps-cross.sh" ppc64le "$@"
