# The floor server's part of a benchmark (sourced by Benchmarks/floor/run.sh and Benchmarks/run.sh, after
# Benchmarks/lib/measure.sh): build it, start it, measure one endpoint, print the table. ROOT is the checkout.

FLOOR_PID=""

# Sets FLOOR to the release binary: FLOOR_BIN when given, else a build of Benchmarks/floor.
floor_build() {
    if [[ -n "${FLOOR_BIN:-}" ]]; then
        [[ -x "$FLOOR_BIN" ]] || die "FLOOR_BIN=$FLOOR_BIN is not an executable"
        FLOOR="$FLOOR_BIN"
        log "using FLOOR_BIN=$FLOOR (no build)"
        return
    fi
    log "building the floor (swift build -c release --package-path Benchmarks/floor)"
    (cd "$ROOT" && swift build -c release --package-path Benchmarks/floor) >&2
    FLOOR="$ROOT/Benchmarks/floor/.build/release/floor"
    [[ -x "$FLOOR" ]] || die "build did not produce $FLOOR"
}

# Starts the floor with a fresh SQLite file in WORK (and PostgreSQL when a URL is given), waits for its port, signs
# one token for the verifying recipes' bodies, and writes one wrk script per endpoint in FLOOR_ENDPOINTS (default:
# root echo verify sign sign_insert, and sign_insert_pg with a URL). An endpoint is
# `root`, `echo`, or a recipe named by its parts: verify, sign, scrypt, insert, signup, each with an optional count
# (sign2 signs twice, insert3 writes three transactions, signup Flint's sign-up transaction), and pg (the transactions
# on PostgreSQL); see floor_path and README.md.
# Sets FLOOR_PID, FLOOR_BASE, FLOOR_ENDPOINTS.
floor_start() { # work [database-url]
    local work=$1 database_url=${2:-} port="" flags endpoint
    flags=(--host 127.0.0.1 --port 0 --sqlite-path "$work/floor.sqlite")
    [[ -n "$database_url" ]] && flags+=(--database-url "$database_url")
    "$FLOOR" "${flags[@]}" > "$work/floor.log" 2>&1 &
    FLOOR_PID=$!
    for _ in $(seq 1 300); do
        kill -0 "$FLOOR_PID" 2>/dev/null || { cat "$work/floor.log" >&2; FLOOR_PID=""; die "the floor exited during start-up"; }
        port="$(sed -n 's/^listening on \([0-9][0-9]*\)$/\1/p' "$work/floor.log" | head -n1)"
        [[ -n "$port" ]] && break
        sleep 0.1
    done
    [[ -n "$port" ]] || { cat "$work/floor.log" >&2; die "the floor did not report its port within 30 s"; }
    FLOOR_BASE="http://127.0.0.1:$port"
    log "floor pid $FLOOR_PID listening on $FLOOR_BASE"
    if [[ -z "${FLOOR_ENDPOINTS:-}" ]]; then
        FLOOR_ENDPOINTS="root echo verify sign sign_insert"
        [[ -n "$database_url" ]] && FLOOR_ENDPOINTS+=" sign_insert_pg"
    fi

    # About 300 bytes, the size of a sign-up or sign-in request.
    local body='{"email":"ada.lovelace@example.com","password":"correct-horse-battery-staple","displayName":"Ada Lovelace","photoUrl":"https://example.com/photos/ada-lovelace.png","tenantId":"tenant-benchmark-0001","returnSecureToken":true,"clientType":"CLIENT_TYPE_WEB","captchaResponse":"floor-benchmark-captcha-response-0123456789"}'
    local token
    token="$(curl -sSf --max-time 10 -X POST -H 'Content-Type: application/json' -d "$body" "$FLOOR_BASE/sign" \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["idToken"])')" || die "the floor's /sign failed"
    mkdir -p "$work/floor-lua"
    for endpoint in $FLOOR_ENDPOINTS; do
        local sent=$body method=POST code
        [[ "$endpoint" == root ]] && { sent=""; method=GET; }
        [[ "$endpoint" == *verify* ]] && sent="${body%\}},\"idToken\":\"$token\"}"
        write_wrk_lua "$work/floor-lua/$endpoint.lua" "$sent"
        code="$(curl -sS --max-time 10 -o "$work/floor-check.json" -w '%{http_code}' -X "$method" \
            -H 'Content-Type: application/json' ${sent:+-d "$sent"} "$FLOOR_BASE$(floor_path "$endpoint")")"
        [[ "$code" == 200 ]] || die "the floor's $endpoint answered HTTP $code: $(head -c 300 "$work/floor-check.json")"
        log "floor $endpoint: $(wc -c < "$work/floor-check.json") bytes answered"
    done
    FLOOR_WORK=$work
}

# The path of an endpoint: / and /echo, else /work with the recipe's counts in the query (verify_sign_insert3_pg:
# /work?verify=1&sign=1&insert=3&store=pg).
floor_path() { # endpoint
    case "$1" in
        root) echo / ;;
        echo) echo /echo ;;
        *)
            local part query="" IFS=_
            for part in $1; do
                case "$part" in
                    pg) query+="&store=pg" ;;
                    verify*|sign*|scrypt*|insert*) local name=${part%%[0-9]*} count=${part##*[a-z]}; query+="&$name=${count:-1}" ;;
                    *) die "unknown part '$part' of the floor's endpoint $1" ;;
                esac
            done
            echo "/work?${query#&}" ;;
    esac
}

# One measured wrk run of an endpoint, recorded as phase floor_ENDPOINT in RESULTS (/dev/null: a warm-up).
floor_measure() { # endpoint round seconds connections results
    local endpoint=$1 round=$2 out="$FLOOR_WORK/raw/floor-$1-r$2.txt"
    mkdir -p "$FLOOR_WORK/raw"
    measure_wrk "$FLOOR_PID" "$5" "$out" "$FLOOR_WORK/floor-lua/$endpoint.lua" "$FLOOR_BASE$(floor_path "$endpoint")" \
        "$4" "$3" "floor_$endpoint" "$round"
    [[ "$5" == /dev/null ]] && return 0
    python3 -c '
import json, sys
r = json.loads(sys.argv[1])
flag = "" if (r["non2xx"] == 0 and r["socket_errors"] == 0 and not r["non200"]) else \
    "  !! non-2xx %d, non-200 %s, %s %s" % (r["non2xx"], r["non200"], r["socket_detail"], r["first_bad"])
print("[bench] %-26s r%d  %8.0f req/s  p50 %6.2f ms  %4.0f us/req (user %.0f, kernel %.0f), %.2f switches/req, other %.2f cores%s%s" % (
    r["phase"], r["round"], r["rps"], r["p50_ms"], r["server_cpu_us_per_req"], r["user_us_per_req"],
    r["system_us_per_req"], r["ctxt_switches_per_req"], r["foreign_cores"], "" if r["clean"] else " NOISY", flag))' \
        "$(tail -n 1 "$5")" >&2
}

floor_stop() {
    [[ -n "$FLOOR_PID" ]] && kill -0 "$FLOOR_PID" 2>/dev/null || return 0
    kill -TERM "$FLOOR_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$FLOOR_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$FLOOR_PID" 2>/dev/null || true
    wait "$FLOOR_PID" 2>/dev/null || true
    FLOOR_PID=""
}

# The floor's table: medians over the rounds of each endpoint, and `openssl speed`'s RSA-2048 on one core.
floor_summary() { # results sign_us verify_us
    python3 - "$@" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip() and json.loads(l)["phase"].startswith("floor_")]
sign_us, verify_us = float(sys.argv[2]), float(sys.argv[3])
def med(phase, key):
    v = [r[key] for r in rows if r["phase"] == phase and r.get(key) is not None]
    return statistics.median(v) if v else float("nan")
def rng(phase):
    v = [r["server_cpu_us_per_req"] for r in rows if r["phase"] == phase]
    return f"{min(v):,.0f}–{max(v):,.0f}" if v else "-"
def label(phase):
    """floor_verify_sign2_insert3_pg -> 'echo + verify + 2 sign + 3 PostgreSQL insert tx'."""
    name = phase[len("floor_"):]
    if name in ("root", "echo"):
        return {"root": "GET / (20 bytes)", "echo": "echo (JSON in, JSON out)"}[name]
    parts, store = name.split("_"), "PostgreSQL" if name.endswith("_pg") else "SQLite"
    words = []
    for part in parts:
        base, count = part.rstrip("0123456789"), part[len(part.rstrip("0123456789")):] or "1"
        if base == "pg":
            continue
        noun = {"verify": "RS256 verify", "sign": "RS256 sign", "scrypt": "scrypt", "insert": f"{store} insert tx",
                "signup": "sign-up tx (Flint's 4 statements)"}[base]
        words.append(noun if count == "1" else f"{count} {noun}")
    return "echo + " + " + ".join(words)
seen = []
for r in rows:
    if r["phase"] not in seen:
        seen.append(r["phase"])
phases = seen
connections = sorted({r["connections"] for r in rows})
print()
print(f"Floor (Benchmarks/floor): medians of {len({r['round'] for r in rows})} rounds, wrk -c{','.join(map(str, connections))}")
hdr = f"{'endpoint':<54}{'req/s':>9}{'CPU µs/req':>12}  {'range':<13}{'user µs':>9}{'kernel µs':>11}{'switches':>10}{'p50 ms':>8}"
print(hdr)
print("-" * len(hdr))
for p in phases:
    print(f"{label(p):<54}{med(p,'rps'):>9,.0f}{med(p,'server_cpu_us_per_req'):>12,.0f}  {rng(p):<13}"
          f"{med(p,'user_us_per_req'):>9,.0f}{med(p,'system_us_per_req'):>11,.0f}{med(p,'ctxt_switches_per_req'):>10.2f}"
          f"{med(p,'p50_ms'):>8.2f}")
echo = med("floor_echo", "server_cpu_us_per_req")
print(f"openssl speed -seconds 3 rsa2048 (one core): sign {sign_us:.0f} µs, verify {verify_us:.1f} µs")
print(f"stretch references: echo + openssl verify {echo + verify_us:,.0f} µs, echo + openssl sign {echo + sign_us:,.0f} µs")
print("switches: voluntary + nonvoluntary context switches of all the server's threads, per request")
bad = [r for r in rows if r["non2xx"] or r["socket_errors"] or r["non200"]]
for r in bad:
    print(f"PROBLEM: {r['phase']} round {r['round']}: non-2xx {r['non2xx']}, non-200 {r['non200']}, {r['socket_detail']} {r['first_bad']}")
sys.exit(1 if bad else 0)
PY
}
