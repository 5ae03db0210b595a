#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Seed corpus for fuzz_parse: each fixture file with its kind as first byte.
set -e
src=$1 dst=$2
rm -rf "$dst"
mkdir -p "$dst"
i=0
for d in "$src"/*/; do
	for kind in 0:version 1:layers 2:stats 3:hist 4:flows 4:slow; do
		f=$d${kind#*:}
		[ -f "$f" ] || continue
		{ printf "\\$(printf %03o "${kind%%:*}")"; cat "$f"; } >"$dst/seed$i"
		i=$((i + 1))
	done
done
# Recordings (iolayers record): kind 5.
for f in "$src"/../recordings/*.jsonl "$src"/../recordings/*.rec; do
	[ -f "$f" ] || continue
	{ printf '\005'; cat "$f"; } >"$dst/seed$i"
	i=$((i + 1))
done
# Lines of the JSON recordings, each alone: kind 6, the flat parser
# against jansson.
for f in "$src"/../recordings/*.jsonl; do
	[ -f "$f" ] || continue
	while IFS= read -r line; do
		{ printf '\006'; printf '%s\n' "$line"; } >"$dst/seed$i"
		i=$((i + 1))
	done <"$f"
done
# Inputs the fuzzer once failed on (kind byte included), kept as seeds so
# that every run goes through them first.
for f in "$src"/../fuzz-found/*; do
	[ -f "$f" ] || continue
	cp "$f" "$dst/seed$i"
	i=$((i + 1))
done
