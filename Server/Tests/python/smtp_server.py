"""A real SMTP server for Flint's email tests (aiosmtpd).

Binds 127.0.0.1 on an ephemeral port and prints one JSON line per event on stdout:
  {"ready": <port>}                                   once it accepts connections
  {"from": ..., "to": [...], "raw": <base64 of the message as received>}   per accepted message

Modes: plain (no TLS), starttls (STARTTLS offered and required), tls (TLS from the first byte).
With --username/--password, AUTH (PLAIN, LOGIN) is required and checked. With --delay-seconds, each
message is answered only after that long (a slow relay). Exits when stdin closes
(the test process went away) or on SIGTERM.
"""

import argparse
import asyncio
import base64
import json
import logging
import signal
import socket
import ssl
import sys
import threading
import warnings

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def emit(event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


class Recorder:
    def __init__(self, delay):
        self.delay = delay

    async def handle_DATA(self, server, session, envelope):
        if self.delay > 0:
            await asyncio.sleep(self.delay)
        emit({
            "from": envelope.mail_from,
            "to": list(envelope.rcpt_tos),
            "raw": base64.b64encode(envelope.original_content or envelope.content).decode("ascii"),
        })
        return "250 OK: queued"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["plain", "starttls", "tls"], default="plain")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--username")
    parser.add_argument("--password")
    parser.add_argument("--exclude-auth", action="append", default=[], help="an AUTH mechanism not to offer")
    parser.add_argument("--max-seconds", type=float, default=300)
    parser.add_argument("--delay-seconds", type=float, default=0, help="how long each message waits for its reply")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    logging.getLogger("mail.log").setLevel(logging.CRITICAL)

    tls_context = None
    if args.mode != "plain":
        tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls_context.load_cert_chain(args.cert, args.key)

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (isinstance(auth_data, LoginPassword)
              and auth_data.login == args.username.encode()
              and auth_data.password == args.password.encode())
        return AuthResult(success=ok, handled=False)

    auth = args.username is not None

    def factory():
        return SMTP(
            Recorder(args.delay_seconds),
            hostname="flint-test-smtp",
            tls_context=tls_context if args.mode == "starttls" else None,
            require_starttls=args.mode == "starttls",
            authenticator=authenticator if auth else None,
            auth_required=auth,
            # Implicit TLS is encrypted already; plain mode is for loopback relays.
            auth_require_tls=args.mode == "starttls",
            auth_exclude_mechanism=args.exclude_auth,
        )

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]

    async def serve():
        loop = asyncio.get_running_loop()
        stop = loop.create_future()

        def finish():
            if not stop.done():
                stop.set_result(None)

        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, lambda: finish())
        # Stdin closing means the test process is gone: stop too. And never outlive --max-seconds.
        def watch_stdin():
            while sys.stdin.buffer.read1(1024):
                pass
            loop.call_soon_threadsafe(finish)

        threading.Thread(target=watch_stdin, daemon=True).start()
        loop.call_later(args.max_seconds, finish)
        server = await loop.create_server(factory, sock=sock, ssl=tls_context if args.mode == "tls" else None)
        emit({"ready": port})
        await stop
        server.close()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
