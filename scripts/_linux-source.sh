# SPDX-License-Identifier: GPL-2.0
# Sourced: sets LINUX_SRC to an extracted copy of Debian's linux-source-6.1.

linux_source() {
	local tar=/usr/src/linux-source-6.1.tar.xz ver
	[ -e "$tar" ] || ensure_pkgs linux-source-6.1
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
	LINUX_SRC=$IOLAYERS_CACHE/linux-source-$ver
	if [ ! -e "$LINUX_SRC/.done" ]; then
		log "extracting linux-source-6.1 $ver"
		rm -rf "$LINUX_SRC" "$LINUX_SRC.tmp"
		mkdir -p "$LINUX_SRC.tmp"
		tar -xJf "$tar" -C "$LINUX_SRC.tmp" --strip-components=1
		mv "$LINUX_SRC.tmp" "$LINUX_SRC"
		touch "$LINUX_SRC/.done"
	fi
}
