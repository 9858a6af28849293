#!/bin/bash
# Write OBJDIR/.config for the patched tree SRCDIR.
#   small:  tinyconfig plus FRAGMENT (the repo's scripts/default-build.config)
#   debian: Debian's full amd64 config, with its distribution keys dropped
#           (their certificate files are not in linux-source) and OpenPGP
#           module signing turned on.
# Every option FRAGMENT asks for must take: a silently dropped option
# (a missing dependency, a renamed symbol) stops the build here.
set -euo pipefail

if [ "$#" -lt 3 ]; then
	echo "usage: $0 SRCDIR OBJDIR small|debian [FRAGMENT...]" >&2
	exit 2
fi
kind=$3
mkdir -p "$2"
# Absolute, because the kernel's make runs in SRCDIR.
src=$(realpath "$1")
obj=$(realpath "$2")
shift 3
fragments=()
for fragment in "$@"; do
	fragments+=("$(realpath "$fragment")")
done
set -- "${fragments[@]}"
kmake=(make -s -C "$src" O="$obj")

case "$kind" in
small)
	"${kmake[@]}" tinyconfig >/dev/null
	;;
debian)
	# The config of the tree's own version: linux-config-6.1 or -6.12.
	series=$(make -s -C "$src" kernelversion | cut -d. -f1,2)
	debconf=/usr/src/linux-config-$series/config.amd64_none_amd64.xz
	if [ ! -r "$debconf" ]; then
		echo "configure-kernel: $debconf: not readable (install linux-config-$series)" >&2
		exit 1
	fi
	xz -dc "$debconf" >"$obj/.config"
	"$src/scripts/config" --file "$obj/.config" \
		--set-str SYSTEM_TRUSTED_KEYS "" \
		--set-str MODULE_SIG_KEY "certs/signing_key.pem" \
		--set-str SYSTEM_REVOCATION_KEYS "" \
		--enable MODULE_SIG --enable MODULE_SIG_PGP
	;;
*)
	echo "configure-kernel: unknown config kind '$kind' (small or debian)" >&2
	exit 2
	;;
esac

for fragment in "$@"; do
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" .config "$fragment") >/dev/null
done
"${kmake[@]}" olddefconfig

# A later fragment may set again what an earlier one set: the last value
# of each option is the one that must take.
declare -A want from
order=()
for fragment in "$@"; do
	while IFS= read -r line; do
		case "$line" in '' | '#'*) continue ;; esac
		sym=${line%%=*}
		[ -n "${want[$sym]+set}" ] || order+=("$sym")
		want[$sym]=$line
		from[$sym]=$fragment
	done <"$fragment"
done
bad=0
for sym in "${order[@]}"; do
	line=${want[$sym]}
	val=${line#*=}
	if [ "$val" = n ]; then
		if grep -q "^$sym=" "$obj/.config"; then
			echo "configure-kernel: ${from[$sym]}: $sym=n did not take" >&2
			bad=1
		fi
	elif ! grep -qxF "$line" "$obj/.config"; then
		echo "configure-kernel: ${from[$sym]}: $line did not take (got: $(grep "^$sym=\|^# $sym is" "$obj/.config" || echo unset))" >&2
		bad=1
	fi
done
exit "$bad"
