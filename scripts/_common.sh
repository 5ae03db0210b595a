# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the iolayers scripts; sourced, never run.

set -euo pipefail

IOLAYERS_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
IOLAYERS_CACHE=${IOLAYERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iolayers}
mkdir -p "$IOLAYERS_CACHE"

# checkout_build_dir: this checkout's directory of builds in the cache
# (modules, the instruction counter, tools), one per clone.
checkout_build_dir() {
	echo "$IOLAYERS_CACHE/build/$(echo "$IOLAYERS_REPO" | sha256sum | cut -c1-12)"
}

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

# ensure_binfmt_arm64: arm64 programs run on this host through
# qemu-user (an arm64 root's maintainer scripts, its compiler): the
# interpreter registered with binfmt_misc, fixed (F) so that it works in
# a chroot.
ensure_binfmt_arm64() {
	ensure_pkgs qemu-user-static binfmt-support arch-test
	[ -e /proc/sys/fs/binfmt_misc/register ] ||
		_sudo mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
		die "cannot mount binfmt_misc"
	[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
		_sudo update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 ||
		die "cannot register qemu-aarch64 with binfmt_misc"
	grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 ||
		die "qemu-aarch64's binfmt_misc entry is disabled"
	grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 ||
		die "qemu-aarch64's binfmt_misc entry has no F flag: programs in a chroot cannot find it (install qemu-user-static)"
}

# What bookworm's arm64 root holds (scripts/suite-root bookworm:arm64):
# the arm64 guests' programs (run-vm) and the libraries the helpers and
# the reader are built against (build-module), asked for together so
# that a fresh root is made in one run.
arm64_root_pkgs=(bash coreutils findutils gawk procps kmod util-linux e2fsprogs iproute2 fio
	python3 bpftrace busybox-static libc6-dev liburing-dev libaio-dev libjansson-dev)

# rm_tree DIR: remove DIR, a root that chroots ran in, after unmounting
# whatever is still mounted under it (a chroot whose script was killed
# keeps /proc, the host's /dev and the cache bound there: rm -rf would go
# through them and delete the host's device nodes and the whole cache;
# --one-file-system alone does not stop at a bind mount of the same file
# system). Refuses while anything stays mounted there.
rm_tree() {
	local d m
	d=$(realpath -m "$1")
	[ -e "$d" ] || return 0
	findmnt -rn -o TARGET | awk -v d="$d" 'index($0, d "/") == 1' | sort -r |
		while read -r m; do
			umount -R "$m" 2>/dev/null || umount -l "$m"
		done
	m=$(findmnt -rn -o TARGET | awk -v d="$d" 'index($0, d "/") == 1' | head -n1)
	[ -z "$m" ] || die "$m is still mounted: not removing $d"
	rm -rf --one-file-system "$d"
}

# suite_apt SUITE[:ARCH]: the configuration (for APT_CONFIG) under which
# the host's apt sees SUITE's archive (bookworm, bullseye and trixie with
# their security suites) for ARCH (amd64 unless given: arm64 for the
# arm64 kernels' headers) with
# sources, lists, a status and preferences of its own under the cache,
# never the host's; the lists fetched again after a day, or when the
# configuration changed. It resolves and downloads only: no root of the
# suite is needed for that, so a kernel or a source package can be
# fetched before (or without) one.
suite_apt() {
	local s=${1%:*} arch=amd64 d=$IOLAYERS_CACHE/apt/${1/:/-} mirror=http://deb.debian.org
	[[ "$1" != *:* ]] || arch=${1#*:}
	local keys=/usr/share/keyrings/debian-archive-keyring.gpg
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/empty"
	(
		flock 8
		{
			echo "deb [signed-by=$keys] $mirror/debian $s main"
			case $s in
			bookworm)
				echo "deb [signed-by=$keys] $mirror/debian $s-updates main"
				echo "deb [signed-by=$keys] $mirror/debian-security $s-security main" ;;
			bullseye | trixie)
				echo "deb [signed-by=$keys] $mirror/debian-security $s-security main" ;;
			esac
		} >"$d/sources.list.new"
		# sid's Release may be past its Valid-Until in the archive. The
		# host's apt.conf.d is still read after this file: what it must
		# not take from the host (preferences, sources) is set here by path.
		cat >"$d/apt.conf.new" <<CONF
Dir::Etc::SourceList "$d/sources.list";
Dir::Etc::SourceParts "$d/empty";
Dir::Etc::Preferences "$d/empty/preferences";
Dir::Etc::PreferencesParts "$d/empty";
Dir::State::Lists "$d/lists";
Dir::State::status "$d/status";
Dir::Cache "$d/cache";
Acquire::Check-Valid-Until "false";
Acquire::Languages "none";
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
APT::Sandbox::User "root";
APT::Update::Error-Mode "any";
CONF
		for f in sources.list apt.conf; do
			if cmp -s "$d/$f.new" "$d/$f"; then
				rm -f "$d/$f.new"
			else
				mv "$d/$f.new" "$d/$f"
				rm -f "$d/updated"
			fi
		done
		[ -e "$d/status" ] || : >"$d/status"
		if [ ! -e "$d/updated" ] || [ -n "$(find "$d/updated" -mmin +1440)" ]; then
			APT_CONFIG=$d/apt.conf apt-get update -qq >"$d/update.log" 2>&1 &&
				compgen -G "$d/lists/*_Packages*" >/dev/null ||
				die "apt-get update for $s failed, see $d/update.log"
			touch "$d/updated"
		fi
	) 8>"$d.lock" || exit 1
	echo "$d/apt.conf"
}

# apt_q CMD...: an apt command as the host sees it, or, with APT_SUITE
# set, as the host's apt sees that suite (suite_apt).
apt_q() {
	local conf
	if [ -n "${APT_SUITE:-}" ]; then
		conf=$(suite_apt "$APT_SUITE") || return 1
		APT_CONFIG=$conf "$@"
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

# counted_disk_opts: the NVMe drive's -drive options for a boot that
# counts the instructions of reads from the disk (make bench, profile, ab;
# run-vm's IOLAYERS_NVME_DRIVE_OPTS). By default QEMU throttles the drive
# to 1,000 requests a second: every uncached read then sleeps for its
# request, as on a real disk, whose latency (tens of microseconds) is far
# longer than what any tracer adds to a read. Unthrottled, the emulated
# drive completes in the host's time while the guest's clock follows its
# instructions, so a read slowed by a tracer found its request done and
# never slept while an untraced one slept or not with the host's speed:
# the sleep and wake-up, about 1,000 instructions a read, came out of the
# tracer's figure (Documentation/benchmarks.rst). QEMU lets a tenth of a
# second's worth through unthrottled after an idle spell (100 requests).
# The host's IOLAYERS_NVME_DRIVE_OPTS, when set (even empty), wins.
counted_disk_opts() {
	printf '%s' "${IOLAYERS_NVME_DRIVE_OPTS-throttling.iops-total=1000}"
}
