# The container side of the end-to-end test, sourced by Tests/e2e/run: a cached Debian 12 tree, a
# fresh copy of it per run, a booted systemd-nspawn container, commands and journal waits inside.
# Needs: CACHE_DIR, KEEP_TREE, note(); sets WORK, TREE, TREE_MOUNTED, NSPAWN_PID, LEADER.

DEBIAN_SUITE=bookworm
# man-db and bash-completion: the package test runs man and bash completion as an administrator would.
# libpq5: jobd and jobctl link PostgreSQL's client library (the fleet), and the package, installed
# offline, depends on it. logrotate, e2fsprogs, util-linux, apt and dpkg ship Debian's timers that the
# differential checks import (minbase has some of them, logrotate not). exim4-daemon-light, Debian's
# default MTA (local delivery only, as debconf sets it up unasked): the mails Debian's cron and jobd in
# cron mode send for the same crontab line are delivered, and compared, in /var/mail.
DEBIAN_INCLUDE=systemd,systemd-sysv,dbus,man-db,bash-completion,libpq5,logrotate,e2fsprogs,util-linux,apt,dpkg,exim4-daemon-light
CONTAINER_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
MACHINE_NAME=jobd-e2e

# The Debian mirror apt on this machine uses (only Debian's mirrors are reachable): the first
# archive URI in the apt sources that is not the security archive. JOBD_E2E_MIRROR overrides it.
debian_mirror() {
    if [ -n "${JOBD_E2E_MIRROR:-}" ]; then echo "$JOBD_E2E_MIRROR"; return; fi
    local uri
    uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | sed -n -e 's/^URIs:[[:space:]]*//p' -e 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\{0,1\}\([^[:space:]]*\).*/\2/p' \
        | tr ' ' '\n' | grep -E '^https?://.*/debian/?$' | head -n1)
    echo "${uri:-http://deb.debian.org/debian}"
}

# The cached tree, named after what it holds so that a changed package list gets a new one. It is
# built in a temporary directory and renamed into place, so a half-built tree is never reused.
cached_tree() {
    echo "$CACHE_DIR/$DEBIAN_SUITE-${DEBIAN_INCLUDE//,/-}"
}

ensure_cached_tree() {
    local tree building mirror
    tree=$(cached_tree)
    if [ -d "$tree" ]; then
        note "reusing the Debian tree $tree"
        return 0
    fi
    mkdir -p "$CACHE_DIR"
    # Leftovers of an interrupted build are never used; clear those old enough not to be another
    # run's build in progress.
    find "$CACHE_DIR" -maxdepth 1 -name '*.building.*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
    building=$(mktemp -d "$tree.building.XXXXXX")
    mirror=$(debian_mirror)
    note "building the Debian tree with debootstrap from $mirror (once; cached in $tree)"
    if ! debootstrap --variant=minbase --include="$DEBIAN_INCLUDE" "$DEBIAN_SUITE" "$building/tree" "$mirror" \
        >"$building.log" 2>&1; then
        tail -n 20 "$building.log" >&2
        rm -rf "$building" "$building.log"
        return 1
    fi
    # A concurrent run may have won the race: its tree is as good as ours.
    mv -T "$building/tree" "$tree" 2>/dev/null || [ -d "$tree" ]
    rm -rf "$building" "$building.log"
}

# This run's tree: an overlay on the cached tree (instant; the cache is only ever read), or where
# overlayfs is not to be had, or with --keep-tree, a copy (reflinks where the file system has
# them; 1 to 6 s for the 240 MB tree on ext4).
prepare_tree() {
    WORK=$(mktemp -d "$CACHE_DIR/run.XXXXXX")
    TREE="$WORK/tree"
    mkdir -p "$WORK/upper" "$WORK/overlay-work" "$TREE"
    if [ "${KEEP_TREE:-0}" != 1 ] && mount -t overlay jobd-e2e \
        -o "lowerdir=$(cached_tree),upperdir=$WORK/upper,workdir=$WORK/overlay-work" "$TREE" 2>/dev/null; then
        TREE_MOUNTED=1
        note "this run's tree is an overlay on the cache: $TREE"
    else
        TREE_MOUNTED=0
        cp -a --reflink=auto "$(cached_tree)/." "$TREE"
        note "this run's tree is a copy of the cache: $TREE"
    fi
}

# Boots the tree and waits until its systemd has finished starting up. nspawn's own seccomp filter
# refuses bpf(2), with which systemd silently runs PrivateDevices= services without their device
# policy, and the keyring calls (add_key, keyctl, request_key), with which systemd and jobd alike run
# every service in no session keyring at all: both are allowed here, so that the differential checks
# see each side's device policy and keyring (issue 27).
boot_container() {
    systemd-nspawn --quiet --boot --register=no --keep-unit --private-network --system-call-filter='bpf @keyring' \
        --machine="$MACHINE_NAME" -D "$TREE" </dev/null >"$WORK/console.log" 2>&1 &
    NSPAWN_PID=$!
    find_leader
    # systemd creates its private socket early in its start-up; only after that can systemctl ask.
    # Nothing to await from outside, so this polls (bounded, 10 ms steps).
    local i
    for i in $(seq 1000); do
        [ -S "/proc/$LEADER/root/run/systemd/private" ] && break
        kill -0 "$NSPAWN_PID" 2>/dev/null || { tail -n 30 "$WORK/console.log" >&2; return 1; }
        sleep 0.01
    done
    local state
    state=$(in_container timeout 120 systemctl is-system-running --wait) || true
    case "$state" in
        running) ;;
        degraded) note "the container booted degraded:"; in_container systemctl --failed --no-pager >&2 ;;
        *) echo "container did not boot: state '$state'" >&2; tail -n 30 "$WORK/console.log" >&2; return 1 ;;
    esac
}

# The container's PID 1 is the child of systemd-nspawn that is PID 1 in its own namespace. Nothing
# announces it with --register=no, so this polls (bounded, 10 ms steps; it is there within ms).
find_leader() {
    local i child
    LEADER=""
    for i in $(seq 1000); do
        for child in $(cat /proc/"$NSPAWN_PID"/task/*/children 2>/dev/null); do
            if grep -qE '^NSpid:[[:space:]]+[0-9]+[[:space:]]+1$' "/proc/$child/status" 2>/dev/null; then
                LEADER=$child
                return 0
            fi
        done
        kill -0 "$NSPAWN_PID" 2>/dev/null || break
        sleep 0.01
    done
    echo "systemd-nspawn started no container" >&2
    tail -n 30 "$WORK/console.log" >&2
    return 1
}

# Powers the container off (systemd-nspawn turns SIGTERM into an orderly shutdown), kills it if
# that takes more than 30 s, and removes the copy of the tree.
teardown_container() {
    if [ -n "${NSPAWN_PID:-}" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
        kill -TERM "$NSPAWN_PID" 2>/dev/null || true
        local i
        for i in $(seq 300); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$NSPAWN_PID" 2>/dev/null || true
        wait "$NSPAWN_PID" 2>/dev/null || true
    fi
    rmdir "/run/systemd/nspawn/propagate/$MACHINE_NAME" 2>/dev/null || true
    if [ -n "${WORK:-}" ] && [ -d "$WORK" ]; then
        if [ "${TREE_MOUNTED:-0}" = 1 ] && ! umount "$TREE"; then
            echo "e2e: could not unmount $TREE; left $WORK in place" >&2
            return
        fi
        if [ "${KEEP_TREE:-0}" = 1 ]; then
            note "kept the container tree in $TREE"
        else
            rm -rf --one-file-system "$WORK"
        fi
    fi
}

# Runs a command inside the container, as an administrator's root shell would, with a clean
# environment.
in_container() {
    nsenter --target "$LEADER" --all \
        env -i PATH="$CONTAINER_PATH" LANG=C.UTF-8 SYSTEMD_PAGER= SYSTEMD_COLORS=0 TERM=dumb "$@"
}

# A mark in the container's journal: just after its newest entry, as `journalctl --since=` takes it
# (@seconds.microseconds). Later waits read only what comes after it. (Not a cursor: journalctl 252
# with --after-cursor and matches skips the first matching entry when the cursor's own entry does
# not match.)
journal_mark() {
    local usec
    usec=$(in_container journalctl --no-pager -n1 -o export | sed -n 's/^__REALTIME_TIMESTAMP=//p')
    usec=$((usec + 1))
    echo "@${usec:0:-6}.${usec: -6}"
}

# await_journal SECONDS MARK REGEX [MATCH...]: waits (event-driven, journalctl --follow) for an
# entry after MARK that has the journal matches and whose short-format line matches REGEX
# (empty: any), and prints that line. Returns 1 when none came within SECONDS.
await_journal() {
    local seconds=$1 mark=$2 pattern=$3 fd follower line found=1
    shift 3
    # The follower prints its own PID (in the container) first, so it can be stopped exactly.
    exec {fd}< <(in_container sh -c \
        'echo $$; s=$1; m=$2; shift 2; exec timeout "$s" journalctl --no-pager --quiet --follow --since="$m" -o short-monotonic "$@"' \
        sh "$seconds" "$mark" "$@")
    if IFS= read -r -u "$fd" follower; then
        while IFS= read -r -u "$fd" line; do
            if [[ -z "$pattern" || "$line" =~ $pattern ]]; then
                printf '%s\n' "$line"
                found=0
                break
            fi
        done
        in_container sh -c 'kill "$1"' sh "$follower" 2>/dev/null || true
    fi
    exec {fd}<&-
    return "$found"
}
