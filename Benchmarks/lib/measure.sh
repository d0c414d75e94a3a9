# Shared by Benchmarks/run.sh and Benchmarks/floor/run.sh (sourced, not run): reading a server's CPU and context
# switches from /proc, one measured wrk run, and `openssl speed`'s RSA-2048 figures.

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# wrk (Debian package), installed only when missing.
ensure_wrk() {
    command -v wrk >/dev/null && return 0
    log "installing wrk"
    if ! apt-get install -y wrk >/dev/null 2>&1; then
        apt-get update >/dev/null
        apt-get install -y wrk >/dev/null
    fi
    command -v wrk >/dev/null || die "wrk is not available"
}

CLK_TCK="$(getconf CLK_TCK)"

# CPU seconds (utime+stime) used so far by a process.
proc_cpu() { awk -v hz="$CLK_TCK" '{ sub(/^.*\) /, ""); printf "%.4f\n", ($12 + $13) / hz }' "/proc/$1/stat"; }
# "user system" CPU seconds used so far by a process, all its threads.
proc_user_system() { awk -v hz="$CLK_TCK" '{ sub(/^.*\) /, ""); printf "%.4f %.4f\n", $12 / hz, $13 / hz }' "/proc/$1/stat"; }
# Context switches (voluntary + nonvoluntary) so far, summed over the process's live threads: /proc/PID/status
# alone counts only the main thread, which a server hardly runs on.
proc_ctxt_switches() {
    cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n + 0 }'
}
# Busy CPU seconds of the whole machine (user+nice+system+irq+softirq+steal).
machine_busy() { awk -v hz="$CLK_TCK" '/^cpu / { printf "%.4f\n", ($2 + $3 + $4 + $7 + $8 + $9) / hz }' /proc/stat; }
proc_kb() { awk -v key="$2:" '$1 == key { print $2 }' "/proc/$1/status"; }
now() { date +%s.%N; }

# A wrk script that sends BODY by POST as JSON (method GET when BODY is empty), counts the responses whose status
# is not 200 and keeps the first such body for diagnosis.
write_wrk_lua() { # file body
    local body_lua method=POST
    [[ -n "$2" ]] || method=GET
    body_lua="$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]) if sys.argv[1] else "nil")' "$2")"
    cat > "$1" <<LUA
wrk.method = "$method"
wrk.body = $body_lua
wrk.headers["Content-Type"] = "application/json"
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) non200 = 0; first_bad = "" end
function response(status, headers, body)
  if status ~= 200 then
    non200 = non200 + 1
    if first_bad == "" then first_bad = tostring(status) .. " " .. string.sub(body or "", 1, 300) end
  end
end
function done(summary, latency, requests)
  local total, sample = 0, ""
  for _, t in ipairs(threads) do
    total = total + (t:get("non200") or 0)
    local b = t:get("first_bad")
    if sample == "" and b ~= nil and b ~= "" then sample = b end
  end
  io.write(string.format("FLINT_NON200 %d\n", total))
  if sample ~= "" then io.write("FLINT_FIRST_BAD " .. string.gsub(sample, "\n", " ") .. "\n") end
end
LUA
}

# Waits (at most 20 s) until a server has used less than 2 % of a core for 0.25 s: the work of requests a run left in
# flight is done.
wait_idle() { # pid
    local cpu0 cpu1
    for _ in $(seq 1 80); do
        cpu0=$(proc_cpu "$1")
        sleep 0.25
        cpu1=$(proc_cpu "$1")
        awk -v a="$cpu0" -v b="$cpu1" 'BEGIN { exit !(b - a < 0.005) }' && return 0
    done
}

# One wrk run against a server, measured from /proc: appends one JSON line to RESULTS with the request rate,
# latencies, and per request the server's CPU (user and kernel apart) and context switches. RESULTS /dev/null: an
# unrecorded run (a warm-up).
# When wrk stops, each connection has one request in flight, which the server still serves (a password hash at 64
# connections is a second or two of them): the readings are taken once the server is idle again, and the requests
# counted are wrk's answers and those in flight. Otherwise the in-flight work would be charged to the answered
# requests, or to the next run.
measure_wrk() { # pid results out lua url connections seconds phase round
    local pid=$1 results=$2 out=$3 lua=$4 url=$5 connections=$6 secs=$7 phase=$8 round=$9
    local times0 times1 switches0 switches1 busy0 busy1 t0 t1
    kill -0 "$pid" 2>/dev/null || die "the server died before $phase round $round"
    wait_idle "$pid"
    times0=$(proc_user_system "$pid"); switches0=$(proc_ctxt_switches "$pid"); busy0=$(machine_busy); t0=$(now)
    local TIMEFORMAT='%U %S'
    # A long timeout: at 64 connections the floor's scrypt recipes (about 50 requests a second, on Swift's pool,
    # which is not fair) answered a request after more than 5 s now and then; one wrk gives up on is still served,
    # and its CPU would count against the others.
    { time timeout $((secs + 30)) wrk -t"${WRK_THREADS:-2}" -c"$connections" -d"${secs}s" --timeout 20s --latency \
        -s "$lua" "$url" > "$out" 2>&1 ; } 2> "$out.time" || { cat "$out" >&2; die "wrk failed for $phase round $round"; }
    wait_idle "$pid"
    times1=$(proc_user_system "$pid" 2>/dev/null) || die "the server died during $phase round $round"
    switches1=$(proc_ctxt_switches "$pid"); busy1=$(machine_busy); t1=$(now)
    [[ "$results" != /dev/null ]] || return 0
    python3 - "$out" "$phase" "$round" "$connections" $times0 $times1 "$switches0" "$switches1" "$busy0" "$busy1" "$t0" "$t1" \
        "$(awk '{ print $1 + $2 }' "$out.time")" "${CLEAN_THRESHOLD:-0.15}" >> "$results" <<'PY'
import json, re, sys
out, phase, rnd, connections = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
user0, sys0, user1, sys1, sw0, sw1, busy0, busy1, t0, t1, wrk_cpu, clean_max = map(float, sys.argv[5:17])
text = open(out).read()
def dur(s):
    m = re.match(r"([\d.]+)(us|ms|s|m)$", s)
    return float(m.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4}[m.group(2)]
lat = {p: dur(v) for p, v in re.findall(r"^\s+(50|75|90|99)%\s+(\S+)", text, re.M)}
requests = int(re.search(r"^\s+(\d+) requests in", text, re.M).group(1))
served = requests + connections   # the answered, and the one each connection had in flight at the end
non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
non200 = re.search(r"FLINT_NON200 (\d+)", text)
bad = re.search(r"FLINT_FIRST_BAD (.*)", text)
elapsed, user, system = t1 - t0, user1 - user0, sys1 - sys0
server_cpu = user + system
per = lambda x: x / served * 1e6
foreign = max(0.0, (busy1 - busy0) - server_cpu - wrk_cpu) / elapsed
print(json.dumps({
    "phase": phase, "round": rnd, "connections": connections, "requests": requests,
    "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)),
    "p50_ms": lat.get("50"), "p75_ms": lat.get("75"), "p90_ms": lat.get("90"), "p99_ms": lat.get("99"),
    "non2xx": int(non2xx.group(1)) if non2xx else 0,
    "socket_errors": sum(map(int, sock.groups())) if sock else 0, "socket_detail": sock.group(0) if sock else "",
    "non200": int(non200.group(1)) if non200 else None, "first_bad": bad.group(1) if bad else "",
    "server_cpu_s": server_cpu, "server_cores": server_cpu / elapsed,
    "server_cpu_us_per_req": per(server_cpu), "user_us_per_req": per(user), "system_us_per_req": per(system),
    "ctxt_switches_per_req": (sw1 - sw0) / served,
    "wrk_cores": wrk_cpu / elapsed, "foreign_cores": foreign, "clean": foreign <= clean_max,
}))
PY
}

# `openssl speed -seconds 3 rsa2048` on one core: prints "sign_us verify_us" (microseconds per operation).
openssl_rsa2048_speed() {
    openssl speed -seconds 3 rsa2048 2>/dev/null | awk '/^rsa +2048 bits/ { printf "%.1f %.1f\n", $4 * 1e6, $5 * 1e6 }'
}
