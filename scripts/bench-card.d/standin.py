"""The Stripe stand-in (scripts/stripe_standin/standin.py) as scripts/bench-card runs it: the
same module and main(), with three changes that only make it quicker, never change an answer.

- TCP_NODELAY on its connections. The stand-in writes a response's headers and its body in two
  sends; on a kept-alive connection Nagle's algorithm holds the body back until the client has
  acknowledged the headers, and the client's delayed ACK makes that about 40 ms per answer. The
  benchmark measures the server, not that stall: this sets socketserver's own
  `disable_nagle_algorithm`.
- A listen queue of 1,024 instead of socketserver's 5. The stand-in accepts connections on one
  thread that competes for the interpreter's lock with the request threads; when the server
  opens connections faster than that (it keeps at most 3 idle per host, so under load it opens
  new ones), the kernel drops the SYNs past 5 and the client sends them again after 1 s: a p99
  of a second that is the stand-in's, not the server's.
- Its webhook endpoints kept in a list. Every event it emits looks for the endpoints to send it
  to by scanning all of its objects; paying 20,000 checkouts (four events each) then takes
  minutes and gets slower with every payment. The same filter now runs over the endpoints only.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "stripe_standin"))
import standin  # noqa: E402

standin.Handler.disable_nagle_algorithm = True
standin.Server.request_queue_size = 1024

_store = standin.StandIn.store


def store(self, ctx, obj):
    if obj.get("object") == "webhook_endpoint":
        self.__dict__.setdefault("_bench_endpoints", []).append(obj["id"])
    return _store(self, ctx, obj)


def endpoints_for(self, account, livemode, type_):
    # As the original, over the endpoints instead of every object (a deleted one is gone from
    # `objects`, and reset() empties `objects`).
    eps = [self.objects[i] for i in self.__dict__.get("_bench_endpoints", ()) if i in self.objects]
    eps = [o for o in eps if o["_account"] == account and o["_livemode"] == livemode
           and o["status"] == "enabled"]
    eps.sort(key=lambda o: o["_seq"])
    return [e for e in eps if "*" in e["enabled_events"] or type_ in e["enabled_events"]]


standin.StandIn.store = store
standin.StandIn.endpoints_for = endpoints_for
sys.exit(standin.main())
