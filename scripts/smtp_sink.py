#!/usr/bin/python3
"""A local SMTP server that keeps what it receives: for the tests and the README walk-through.

Each message is written to MAILDIR as NNNNNN.eml (the raw message) and NNNNNN.json (the
envelope), the .eml last, so a reader that sees it sees a whole message. Needs Debian's
python3-aiosmtpd (run it with /usr/bin/python3).

  smtp_sink.py --port 2525 --maildir /tmp/mail [--tls-cert C --tls-key K [--implicit-tls]]
               [--reject REGEX]

--tls-cert/--tls-key offer STARTTLS and require it before MAIL (with --implicit-tls: TLS from
the first byte instead, as on port 465); --reject answers 550 to
recipients matching REGEX. Listens on 127.0.0.1 only; stops on SIGTERM or SIGINT.
"""
import argparse
import itertools
import json
import os
import re
import signal
import ssl
import threading

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self, maildir, reject):
        self.maildir = maildir
        self.reject = re.compile(reject) if reject else None
        existing = [int(n[:-4]) for n in os.listdir(maildir) if n.endswith(".eml")]
        self.counter = itertools.count(max(existing, default=0) + 1)
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.reject and self.reject.search(address):
            return "550 5.1.1 <%s>: mailbox unavailable" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            n = next(self.counter)
        base = os.path.join(self.maildir, "%06d" % n)
        with open(base + ".json", "w") as f:
            json.dump({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos,
                       "tls": session.ssl is not None or server.transport.get_extra_info("sslcontext") is not None}, f)
        with open(base + ".tmp", "wb") as f:
            f.write(envelope.original_content or envelope.content)
        os.rename(base + ".tmp", base + ".eml")
        return "250 Message accepted for delivery"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--maildir", required=True)
    p.add_argument("--tls-cert")
    p.add_argument("--tls-key")
    p.add_argument("--implicit-tls", action="store_true")
    p.add_argument("--reject")
    args = p.parse_args()
    os.makedirs(args.maildir, exist_ok=True)
    tls = None
    if args.tls_cert:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(args.tls_cert, args.tls_key)
    if args.implicit_tls:
        controller = Controller(Sink(args.maildir, args.reject), hostname="127.0.0.1",
                                port=args.port, ssl_context=tls)
    else:
        controller = Controller(Sink(args.maildir, args.reject), hostname="127.0.0.1",
                                port=args.port, tls_context=tls, require_starttls=tls is not None)
    controller.start()
    print("smtp sink listening on 127.0.0.1:%d" % args.port, flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    done.wait()
    controller.stop()


if __name__ == "__main__":
    main()
