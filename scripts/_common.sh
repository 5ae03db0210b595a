# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the iolayers scripts; sourced, never run.

set -euo pipefail

IOLAYERS_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
IOLAYERS_CACHE=${IOLAYERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iolayers}
mkdir -p "$IOLAYERS_CACHE"

log() { printf '[iolayers] %s\n' "$*" >&2; }
die() { printf '[iolayers] error: %s\n' "$*" >&2; exit 1; }

_sudo() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# ensure_pkgs PKG...: apt-get install what is missing, silent when all present.
ensure_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing: ${missing[*]}"
	_sudo apt-get update -qq >/dev/null ||
		die "apt-get update failed"
	_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
}

# apt_q CMD...: an apt command as the host sees it, or, with APT_SUITE
# set, as that suite's root (scripts/suite-root) sees it.
apt_q() {
	if [ -n "${APT_SUITE:-}" ]; then
		"$IOLAYERS_REPO/scripts/suite-root" --run "$APT_SUITE" "$@"
	else
		"$@"
	fi
}

# apt_has PKG: true when apt can download PKG.
apt_has() {
	local info
	info=$(apt_q apt-cache show --no-all-versions "$1" 2>/dev/null) || return 1
	[[ "$info" == *$'\nFilename: '* ]]
}

# bpftrace_root KERNEL: the suite root whose bpftrace traces KERNEL in the
# guest (IOLAYERS_BPFTRACE_ROOT, tests/vm/_lib.sh): sid's for sid's
# newest kernel, the host's bookworm bpftrace (0.17) being too old to
# know it well; nothing (the host's) for the others.
bpftrace_root() {
	[ "$1" = sid ] || return 0
	"$IOLAYERS_REPO/scripts/suite-root" sid bpftrace
}
