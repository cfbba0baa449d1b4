# The differential checks of the end-to-end test (issue 27's acceptance), sourced by Tests/e2e/run:
# the probe (Tests/e2e/probe.c, built on the host) run by systemd 252 (`systemd-run --wait --pipe -p
# KEY=VALUE …`) and by jobd (a job file with the same keys, `jobctl run JOB --wait`) in the same
# container, and the two reports compared field by field; Debian 12's eight timers imported and
# their jobs compared the same way; MemoryMax=, CPUQuota= and TasksMax= against systemd's.
# Needs: TREE, WORK, here, in_container, unit, fail, note, await_journal, MARK.

PROBE=/usr/local/bin/jobd-e2e-probe
DIFFERENTIAL_DIR="" # set by differential_setup: $WORK/differential

# Debian 12's timer services whose keys the checks take from the tree's unit files.
DEBIAN_TIMERS="man-db logrotate fstrim e2scrub_all systemd-tmpfiles-clean dpkg-db-backup apt-daily apt-daily-upgrade"

# The keys of a service that set what a process is and sees (exec, sandbox, resource control), as
# the probe can observe them: an allow-list. Ordering, conditions, commands, the type, the stop
# and exit handling, credentials and the log identifier change nothing the probe reports.
PROBED_KEYS='^(User|Group|SupplementaryGroups|Nice|IOScheduling[A-Za-z]*|CPUScheduling[A-Za-z]*|UMask|Limit[A-Z]+|OOMScoreAdjust|NoNewPrivileges|Private[A-Za-z]+|Protect[A-Za-z]+|LockPersonality|Restrict[A-Za-z]+|MemoryDenyWriteExecute|SystemCall[A-Za-z]+|ReadWritePaths|ReadOnlyPaths|InaccessiblePaths|CapabilityBoundingSet|AmbientCapabilities|Memory[A-Z][a-z]+|CPUQuota|CPUWeight|IOWeight|TasksMax)='

# The mixed key sets, beside the eight services': [NAME] and its keys. Each is run by both.
mixed_key_sets() {
    cat <<'EOF'
[nobody-capabilities]
User=nobody
CapabilityBoundingSet=CAP_NET_BIND_SERVICE CAP_SYS_NICE CAP_CHOWN
AmbientCapabilities=CAP_NET_BIND_SERVICE CAP_SYS_NICE
[bounding-set-nnp]
CapabilityBoundingSet=~CAP_SYS_ADMIN CAP_NET_RAW CAP_SYS_PTRACE
NoNewPrivileges=yes
[strict-read-write-paths]
ProtectSystem=strict
ReadWritePaths=/var/tmp /srv
ReadOnlyPaths=/run
InaccessiblePaths=/opt
ProtectHome=read-only
[priorities-limits-umask]
Nice=10
IOSchedulingClass=best-effort
IOSchedulingPriority=6
CPUSchedulingPolicy=batch
LimitNOFILE=4096:8192
OOMScoreAdjust=500
LimitCORE=0
LimitNPROC=500
UMask=0077
[all-limits]
LimitCPU=100
LimitFSIZE=1G
LimitDATA=2G
LimitSTACK=4M:16M
LimitAS=infinity
LimitMEMLOCK=64K
LimitLOCKS=100
LimitSIGPENDING=1000
LimitMSGQUEUE=100000
LimitRTTIME=infinity
[private-network-hostname]
PrivateNetwork=yes
ProtectHostname=yes
[system-service-errno]
SystemCallFilter=@system-service
SystemCallErrorNumber=EPERM
[deny-groups-kill]
SystemCallFilter=~@swap @module @mount @debug
[nobody-plain]
User=nobody
[nobody-groups-directory]
User=nobody
Group=nogroup
SupplementaryGroups=users
WorkingDirectory=-/nonexistent
[nobody-group-supplementary]
User=nobody
Group=nogroup
SupplementaryGroups=adm users
UMask=0027
[nobody-full-sandbox]
User=nobody
PrivateTmp=yes
PrivateDevices=yes
ProtectSystem=full
ProtectHome=tmpfs
RestrictNamespaces=yes
MemoryDenyWriteExecute=yes
LockPersonality=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
ProtectKernelLogs=yes
ProtectClock=yes
[kernel-protections]
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectControlGroups=yes
ProtectKernelLogs=yes
PrivateTmp=yes
RestrictSUIDSGID=yes
[realtime-idle-io]
CPUSchedulingPolicy=fifo
CPUSchedulingPriority=10
IOSchedulingClass=idle
Nice=-5
OOMScoreAdjust=-500
EOF
}

# The key sets jobd refuses at load, each with why systemd runs them and jobd does not; the check
# expects the refusal, naming the key.
refused_key_sets() {
    cat <<'EOF'
[private-users]
# systemd runs the service in a user namespace of its own, root mapped to nobody; jobd makes no
# user namespaces (docs/internals.md, "Where jobd refuses").
PrivateUsers=yes
[per-call-errno]
# systemd gives each listed call its own errno; jobd's filters take one SystemCallErrorNumber= for all.
SystemCallFilter=@system-service swapoff:ENOSYS
[cpu-weight]
# The cpu controller is on cgroup v1 here, read-only in an nspawn container: systemd 252 logs that
# it cannot write cpu.shares and runs the service without it; jobd never does less than a key says.
CPUWeight=50
[io-weight]
# The same for blkio.weight.
IOWeight=50
EOF
}

# Builds the probe into the tree and makes the markers it looks for: in the container's own /tmp
# and /var/tmp (a private one lacks them), and in /home (empty in a fresh tree, so that a hidden
# /home and a visible one differ).
# (The check's job files go when it ends, also when it fails, so that later reloads do not fail on them.)
differential_setup() {
    trap "rm -f '$TREE'/etc/jobd/jobs.d/diff-*.job '$TREE'/etc/jobd/jobs.d/refused-*.job '$TREE'/etc/jobd/jobs.d/imported-*.job
        in_container systemctl reload jobd >/dev/null 2>&1 || true" EXIT
    DIFFERENTIAL_DIR="$WORK/differential"
    mkdir -p "$DIFFERENTIAL_DIR"
    if [ ! -x "$TREE$PROBE" ]; then
        command -v cc >/dev/null || fail "cc is missing on the host, to build the probe"
        cc -O2 -Wall -Wextra -Werror -o "$TREE$PROBE" "$here/probe.c" || fail "cc could not build the probe"
    fi
    in_container sh -c 'touch /tmp/jobd-e2e-host-marker /var/tmp/jobd-e2e-host-marker /home/jobd-e2e-marker /srv/jobd-e2e-marker'
    [ "$(unit ActiveState)" = active ] || in_container timeout 120 systemctl start jobd || fail "systemctl start jobd failed"
}

# The probed keys of a service in the tree, one KEY=VALUE a line.
service_keys() {
    sed -n '/^\[Service\]/,/^\[/p' "$TREE/lib/systemd/system/$1.service" | grep -E "$PROBED_KEYS" || true
}

# Writes each key set as DIR/NAME.keys: the eight services' and the mixed ones.
write_key_sets() {
    local dir=$1 timer
    for timer in $DEBIAN_TIMERS; do
        [ -e "$TREE/lib/systemd/system/$timer.service" ] || fail "the tree has no $timer.service"
        service_keys "$timer" >"$dir/$timer.keys"
    done
    mixed_key_sets | awk -v dir="$dir" '/^\[.*\]$/ { file = dir "/" substr($0, 2, length($0) - 2) ".keys"; next } { print > file }'
}

# systemd's report: the probe as a transient service with the keys. IgnoreSIGPIPE=no is the one
# key added: systemd ignores SIGPIPE in services by default, jobd never (as cron; jobd.service
# itself says IgnoreSIGPIPE=false so that its jobs start with every signal at its default).
# Prints the probe's report and, last, exit_status=N.
systemd_report() {
    local keys=$1 status=0 arguments=()
    shift
    while IFS= read -r line; do arguments+=(-p "$line"); done <"$keys"
    in_container systemd-run --quiet --wait --pipe --collect -p IgnoreSIGPIPE=no "${arguments[@]}" "$@" </dev/null \
        2>"${keys%.keys}.systemd.stderr" || status=$?
    echo "exit_status=$status"
}

# jobd's report of JOB (loaded): its output by jobctl run --wait, and its exit status last;
# what jobctl said on stderr goes to STDERR.
jobd_report() {
    local status=0
    in_container jobctl run "$1" --wait 2>"$2" </dev/null || status=$?
    echo "exit_status=$status"
}

# A job file with the keys of KEYS and COMMAND.
write_job() {
    local name=$1 keys=$2
    shift 2
    {
        echo "# The differential test's job: the keys of $(basename "$keys"), with the probe."
        echo "[Job]"
        echo "Description=End-to-end test: the differential probe with the keys of $name"
        echo "OnStartupSec=1h"
        cat "$keys"
        echo "ExecStart=$*"
    } >"$TREE/etc/jobd/jobs.d/$name.job"
}

# Where systemd 252 and jobd differ on purpose, and why: SET|FIELD|SYSTEMD'S VALUE|JOBD'S VALUE. A
# known difference is printed and passes only with exactly these two values.
known_differences() {
    cat <<'EOF'
# ProtectHome=tmpfs: systemd.exec(5) says the tmpfs on /home, /root and /run/user is read-only, and
# jobd mounts it so; Debian 12's systemd 252 mounts a writable one of mode 1777 there (no nodev
# either), less than its own manual says.
nobody-full-sandbox|path /home writable|ok|EROFS
nobody-full-sandbox|path /root writable|ok|EROFS
EOF
}

# Compares two reports field by field (a field is what comes before the first =); prints each
# difference with both values and returns 1 when there is one that is not a known difference.
compare_reports() {
    local name=$1 systemd=$2 jobd=$3 side
    for side in "$systemd" "$jobd"; do
        if [ "$(wc -l <"$side")" -le 1 ]; then
            echo "    $name: no report from ${side##*.} ($(cat "$side")): $(cat "$side.stderr" 2>/dev/null)" >&2
            return 1
        fi
    done
    awk -F= -v name="$name" -v known="$(known_differences | grep -v '^#')" '
        BEGIN { count = split(known, lines, "\n"); for (i = 1; i <= count; i++) { split(lines[i], k, "|"); expected[k[1], k[2]] = k[3] "|" k[4] } }
        FNR == 1 { side++ }
        { field = $1; value = substr($0, length($1) + 2); if (side == 1) s[field] = value; else j[field] = value; seen[field] = 1 }
        END {
            bad = 0
            for (field in seen) {
                if (!(field in s)) { printf "    %s: %s: systemd: (missing) jobd: %s\n", name, field, j[field]; bad = 1 }
                else if (!(field in j)) { printf "    %s: %s: systemd: %s jobd: (missing)\n", name, field, s[field]; bad = 1 }
                else if (s[field] != j[field] && expected[name, field] == s[field] "|" j[field]) {
                    printf "    %s: %s: systemd: %s jobd: %s (a known difference, see differential.sh)\n", name, field, s[field], j[field]
                } else if (s[field] != j[field]) { printf "    %s: %s: systemd: %s jobd: %s\n", name, field, s[field], j[field]; bad = 1 }
            }
            exit bad
        }' "$systemd" "$jobd" >&2
}

# 1. At least 12 key sets, run by systemd and by jobd (all job files loaded by one reload), the
# reports equal field by field.
check_differential_key_sets() {
    differential_setup
    local dir="$DIFFERENTIAL_DIR/sets" keys name different=()
    mkdir -p "$dir"
    write_key_sets "$dir"
    for keys in "$dir"/*.keys; do
        name=$(basename "$keys" .keys)
        write_job "diff-$name" "$keys" "$PROBE"
    done
    in_container systemctl reload jobd || fail "systemctl reload jobd failed with the differential jobs"
    for keys in "$dir"/*.keys; do
        name=$(basename "$keys" .keys)
        systemd_report "$keys" "$PROBE" >"$dir/$name.systemd"
        jobd_report "diff-$name" "$dir/$name.jobd.stderr" >"$dir/$name.jobd"
        if ! compare_reports "$name" "$dir/$name.systemd" "$dir/$name.jobd"; then different+=("$name"); fi
    done
    rm -f "$TREE"/etc/jobd/jobs.d/diff-*.job
    in_container systemctl reload jobd || fail "systemctl reload jobd failed after removing the differential jobs"
    note "    $(ls "$dir"/*.keys | wc -l) key sets compared, $((${#different[@]})) different"
    expect_refusals "$DIFFERENTIAL_DIR/refused"
    expect_raised_hard_limit_to_fail "$DIFFERENTIAL_DIR/raised"
    [ "${#different[@]}" = 0 ] || fail "jobd and systemd differ for: ${different[*]}"
}

# What `jobctl import timer` may report as not carried over from Debian's timers: what jobd
# documents as meaning nothing to it (ordering against other units, the credentials systemd loads,
# the + prefix of a root command in a User= service). Anything else lost fails the check.
NOT_APPLICABLE='not carried over: (\[Unit\] (After|Before|Conflicts|Wants|Requires|RequiresMountsFor|DefaultDependencies)=|\[Service\] LoadCredential=|ExecStart=: the .\+. prefix)'

# The imported job of TIMER as the probe: its keys, its conditions left out (the container fails
# some: fstrim's !container; they are compared in the unit tests), its schedule and command
# replaced. A command line continued with \ is dropped whole.
probe_job_from_import() {
    awk -v probe="$PROBE" '
        continued { continued = /\\$/; next }
        /^ExecStart=/ { continued = /\\$/; next }
        /^(Condition|Assert)[A-Za-z]+=/ || /^(OnCalendar|OnStartupSec|OnUnitActiveSec|OnUnitInactiveSec|OnBootSec|Persistent|RandomizedDelaySec)=/ { next }
        { print }
        /^\[Job\]$/ { print "OnStartupSec=1h" }
        END { print "ExecStart=" probe }' "$1"
}

# The refused key sets: one reload with all of them fails, with a config.error for each file that
# names its key.
expect_refusals() {
    local dir=$1 keys name key mark message
    mkdir -p "$dir"
    refused_key_sets | grep -v '^#' | awk -v dir="$dir" '/^\[.*\]$/ { file = dir "/" substr($0, 2, length($0) - 2) ".keys"; next } { print > file }'
    for keys in "$dir"/*.keys; do write_job "refused-$(basename "$keys" .keys)" "$keys" "$PROBE"; done
    mark=$(journal_mark)
    # (systemctl's own "Job for jobd.service failed" is expected here, and left out.)
    if in_container systemctl reload jobd 2>/dev/null; then
        rm -f "$TREE"/etc/jobd/jobs.d/refused-*.job
        fail "systemctl reload jobd accepted the key sets jobd must refuse"
    fi
    for keys in "$dir"/*.keys; do
        name=$(basename "$keys" .keys)
        key=$(sed -n '1s/=.*//p' "$keys")
        await_journal 10 "$mark" '' -u jobd JOBD_EVENT=config.error CONFIG_FILE="/etc/jobd/jobs.d/refused-$name.job" >/dev/null \
            || fail "$name: no config.error for refused-$name.job"
        message=$(in_container journalctl --no-pager -q --since="$mark" -u jobd JOBD_EVENT=config.error \
            CONFIG_FILE="/etc/jobd/jobs.d/refused-$name.job" -o cat)
        grep -F "$key" <<<"$message" >/dev/null || fail "$name: the refusal does not name $key: $message"
        note "    refused as expected: $(head -n1 <<<"$message")"
    done
    rm -f "$TREE"/etc/jobd/jobs.d/refused-*.job
    in_container systemctl reload jobd || fail "systemctl reload jobd failed after removing the refused key sets"
}

# A hard limit above the container's (LimitNICE=30 where the hard limit is 0) needs CAP_SYS_RESOURCE,
# which an nspawn container does not have: systemd 252 sets the closest limit it can (its
# setrlimit_closest(): 0:0) and runs the service; jobd, which never does less than a key says,
# refuses the job at load with the reason, which jobctl run repeats. Both are checked.
expect_raised_hard_limit_to_fail() {
    local dir=$1 status=0
    mkdir -p "$dir"
    echo LimitNICE=30 >"$dir/raised.keys"
    write_job diff-raised-hard-limit "$dir/raised.keys" "$PROBE"
    # A reload that refuses a job file fails (jobctl reload's exit status), and takes the rest.
    local reloaded=0
    in_container systemctl reload jobd >/dev/null 2>&1 || reloaded=$?
    systemd_report "$dir/raised.keys" "$PROBE" >"$dir/raised.systemd"
    in_container jobctl run diff-raised-hard-limit --wait >"$dir/raised.jobd" 2>&1 </dev/null || status=$?
    rm -f "$TREE/etc/jobd/jobs.d/diff-raised-hard-limit.job"
    in_container systemctl reload jobd || fail "systemctl reload jobd failed after removing diff-raised-hard-limit"
    if grep -x 'limit_nice=30:30' "$dir/raised.systemd" >/dev/null; then
        note "    LimitNICE=30: this container lets systemd raise the hard limit; jobd must too"
        [ "$reloaded" = 0 ] || fail "LimitNICE=30: systemd set it, jobd's reload refused it"
        grep -x 'limit_nice=30:30' "$dir/raised.jobd" >/dev/null || fail "LimitNICE=30: systemd set it, jobd did not: $(cat "$dir/raised.jobd")"
        return 0
    fi
    [ "$reloaded" != 0 ] || fail "LimitNICE=30: jobd's reload took a job whose hard limit it cannot set"
    note "    LimitNICE=30: systemd ran the service with $(grep '^limit_nice=' "$dir/raised.systemd") (the closest it could set)"
    local refusal='LimitNICE=: a hard limit of 30 cannot be set: jobd'"'"'s own is 0, and raising it needs CAP_SYS_RESOURCE'
    [ "$status" != 0 ] && grep -F "$refusal" "$dir/raised.jobd" >/dev/null \
        || fail "LimitNICE=30: jobd did not refuse the job with the reason (exit $status): $(cat "$dir/raised.jobd")"
    note "    LimitNICE=30: jobd refused the job at load: $(grep -F "$refusal" "$dir/raised.jobd" | head -n1)"
}

# 2. Debian 12's eight timers: imported with nothing lost but what is not applicable, the files
# valid, and each imported job's keys giving the probe the view systemd-run gives it with the
# service's keys.
check_differential_imported_timers() {
    differential_setup
    local dir="$DIFFERENTIAL_DIR/imported" timer output status lost unexpected different=()
    mkdir -p "$dir/keys" "$TREE/root/jobd-e2e-imported/jobs.d"
    for timer in $DEBIAN_TIMERS; do
        status=0
        output=$(in_container jobctl import timer "/lib/systemd/system/$timer.timer" --output /root/jobd-e2e-imported/jobs.d 2>&1) || status=$?
        grep -F "/lib/systemd/system/$timer.timer: imported as $timer.job" <<<"$output" >/dev/null \
            || { echo "$output" >&2; fail "jobctl import timer $timer.timer did not import it (exit $status)"; }
        lost=$(grep -F 'not carried over:' <<<"$output" || true)
        unexpected=$(grep -vE "$NOT_APPLICABLE" <<<"$lost" || true)
        [ -z "$unexpected" ] || fail "$timer: lost what is not documented as not applicable: $unexpected"
        [ "$status" = "$([ -z "$lost" ] && echo 0 || echo 1)" ] || fail "jobctl import timer $timer.timer exited $status"
        [ -z "$lost" ] || note "    $timer: $(sed 's/^[^ ]*: not carried over: //' <<<"$lost" | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
    done
    output=$(in_container jobctl check --config-dir /root/jobd-e2e-imported 2>&1) || { echo "$output" >&2; fail "jobctl check rejects the imported jobs"; }
    for timer in $DEBIAN_TIMERS; do
        [ -s "$DIFFERENTIAL_DIR/sets/$timer.systemd" ] && cp "$DIFFERENTIAL_DIR/sets/$timer.systemd" "$dir/$timer.systemd" && continue
        service_keys "$timer" >"$dir/keys/$timer.keys"
        systemd_report "$dir/keys/$timer.keys" "$PROBE" >"$dir/$timer.systemd"
    done
    for timer in $DEBIAN_TIMERS; do
        probe_job_from_import "$TREE/root/jobd-e2e-imported/jobs.d/$timer.job" >"$TREE/etc/jobd/jobs.d/imported-$timer.job"
    done
    in_container systemctl reload jobd || fail "systemctl reload jobd failed with the imported jobs"
    for timer in $DEBIAN_TIMERS; do
        jobd_report "imported-$timer" "$dir/$timer.jobd.stderr" >"$dir/$timer.jobd"
        if ! compare_reports "imported $timer" "$dir/$timer.systemd" "$dir/$timer.jobd"; then different+=("$timer"); fi
    done
    rm -f "$TREE"/etc/jobd/jobs.d/imported-*.job
    rm -rf "$TREE/root/jobd-e2e-imported"
    in_container systemctl reload jobd || fail "systemctl reload jobd failed after removing the imported jobs"
    [ "${#different[@]}" = 0 ] || fail "imported jobs see what systemd's services do not: ${different[*]}"
}

# Whether this container's systemd can apply CONTROLLER's keys: it is enabled on the unified
# hierarchy, or its cgroup v1 hierarchy is mounted writable (an nspawn container's is read-only).
controller_writable() {
    in_container sh -c '
        for root in /sys/fs/cgroup /sys/fs/cgroup/unified; do
            [ -e "$root/cgroup.subtree_control" ] && grep -qw "$1" "$root/cgroup.subtree_control" && exit 0
        done
        awk -v c="$1" '\''$9 == "cgroup" && ("," $NF ",") ~ ("," c ",") && ("," $6 ",") ~ /,rw,/ { found = 1 } END { exit !found }'\'' /proc/self/mountinfo' \
        sh "$1"
}

# systemd-run's run of the probe with KEY: its output, then result=RESULT (systemctl show -P Result).
systemd_resource_run() {
    local kind=$1 key=$2 status=0 result
    shift 2
    in_container systemctl reset-failed "jobd-e2e-$kind.service" 2>/dev/null || true
    in_container systemd-run --quiet --wait --pipe --unit="jobd-e2e-$kind" -p IgnoreSIGPIPE=no -p "$key" "$PROBE" "$@" </dev/null || status=$?
    result=$(in_container systemctl show -P Result "jobd-e2e-$kind.service")
    echo "result=${result:-success}"
    echo "exit_status=$status"
    in_container systemctl reset-failed "jobd-e2e-$kind.service" 2>/dev/null || true
}

# jobd's run of the probe with KEY: refused=MESSAGE when the reload rejects the job (the reason
# logged), else its output and result=JOBD_RESULT.
jobd_resource_run() {
    local kind=$1 key=$2 file mark result
    shift 2
    file="/etc/jobd/jobs.d/diff-$kind.job"
    printf '[Job]\nDescription=End-to-end test: %s\nOnStartupSec=1h\n%s\nExecStart=%s %s\n' "$key" "$key" "$PROBE" "$*" >"$TREE$file"
    mark=$(journal_mark)
    if ! in_container systemctl reload jobd 2>/dev/null; then
        await_journal 10 "$mark" '' -u jobd JOBD_EVENT=config.error CONFIG_FILE="$file" >/dev/null || fail "the reload failed without a config.error for $file"
        echo "refused=$(in_container journalctl --no-pager -q --since="$mark" -u jobd JOBD_EVENT=config.error CONFIG_FILE="$file" -o cat -n1)"
    else
        in_container jobctl run "diff-$kind" --wait 2>>"$DIFFERENTIAL_DIR/jobctl.stderr" </dev/null || true
        result=$(in_container journalctl --no-pager -q -u jobd JOB="diff-$kind" JOBD_EVENT=run.exit -n1 -o export | sed -n 's/^JOBD_RESULT=//p')
        echo "result=$result"
    fi
    rm -f "$TREE$file"
    in_container systemctl reload jobd || fail "systemctl reload jobd failed after removing $file"
}

field() { sed -n "s/^$1=//p" "$2" | tail -n1; }

# 3. MemoryMax=50M against 200 MB, CPUQuota=20% against a 5 s busy loop, TasksMax=20 against a fork
# loop of 100: where systemd enforces the key in this container, jobd must end the same way; where
# it does not (its controller is read-only here), that is said, and jobd must refuse the job at
# load with the reason or enforce the key itself.
check_differential_resource_limits() {
    differential_setup
    local dir="$DIFFERENTIAL_DIR/resources" kind key controller arguments systemd_enforces jobd_enforces ratio
    mkdir -p "$dir"
    for kind in memory-max cpu-quota tasks-max; do
        case "$kind" in
            memory-max) key=MemoryMax=50M controller=memory arguments="allocate 200" ;;
            cpu-quota) key=CPUQuota=20% controller=cpu arguments="spin 5" ;;
            tasks-max) key=TasksMax=20 controller=pids arguments="fork 100" ;;
        esac
        # shellcheck disable=SC2086
        systemd_resource_run "$kind" "$key" $arguments >"$dir/$kind.systemd"
        # shellcheck disable=SC2086
        jobd_resource_run "$kind" "$key" $arguments >"$dir/$kind.jobd"
        enforced() {
            case "$kind" in
                memory-max) [ "$(field result "$1")" = oom-kill ] ;;
                cpu-quota) ratio=$(awk -F= '/^cpu_seconds=/ { c = $2 } /^wall_seconds=/ { w = $2 } END { if (w > 0) printf "%.2f", c / w }' "$1")
                    [ -n "$ratio" ] && awk -v r="$ratio" 'BEGIN { exit !(r <= 0.25) }' && controller_writable cpu ;;
                tasks-max) [ "$(field forked "$1")" = 19 ] ;;
            esac
        }
        systemd_enforces=no jobd_enforces=no
        enforced "$dir/$kind.systemd" && systemd_enforces=yes
        enforced "$dir/$kind.jobd" && jobd_enforces=yes
        note "    $key: systemd: $(grep -E '^(result|allocated|forked|cpu_seconds|wall_seconds)=' "$dir/$kind.systemd" | tr '\n' ' ')(enforced: $systemd_enforces; $controller controller writable here: $(controller_writable "$controller" && echo yes || echo no))"
        note "    $key: jobd: $(grep -E '^(refused|result|allocated|forked|cpu_seconds|wall_seconds)=' "$dir/$kind.jobd" | tr '\n' ' ')(enforced: $jobd_enforces)"
        if [ -n "$(field refused "$dir/$kind.jobd")" ]; then
            [ "$systemd_enforces" = no ] || fail "$key: jobd refuses what systemd enforces here"
            grep -F "${key%%=*}" "$dir/$kind.jobd" >/dev/null || fail "$key: jobd's refusal does not name the key"
            note "    $key: systemd does not enforce it in this container; jobd refuses it at load, saying why"
        else
            [ "$systemd_enforces" = no ] || [ "$jobd_enforces" = yes ] || fail "$key: systemd enforces it here, jobd does not"
            [ "$jobd_enforces" = yes ] || fail "$key: jobd accepted the key but did not enforce it"
        fi
    done
}
