"""The public pack index check against a server that trickles or breaks off: "could not tell", in bounded time.

A server that sends one byte at a time just inside the per-read timeout
would otherwise hold the run for as long as it likes (each byte resets the
timeout, and a fixed-size chunk read waits for the whole chunk), so one
body may take at most ``MAX_SECONDS`` of wall-clock time.  The clock is the
module's ``_clock``, stepped here by the test: no test waits for real time.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bot.github.client import RetryPolicy
from bot.pack import public_index
from bot.pack.public_index import PackIndexAnswer, check_pack_index

PACK = "PyTorch::ExecuTorch@1.5.1"


@pytest.fixture
def server():
    release = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path == "/trickle":        # one byte, then nothing until the test is done
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"<")
                self.wfile.flush()
                release.wait(20)
            elif self.path == "/short":        # promises 1000 bytes, sends 7, hangs up
                self.send_response(200)
                self.send_header("Content-Length", "1000")
                self.end_headers()
                self.wfile.write(b"<index>")

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_port}"
    release.set()
    srv.shutdown()
    srv.server_close()


def ask(url):
    return check_pack_index("1.5.1", url=url, cache=None,
                            policy=RetryPolicy(attempts=1, backoff=0.0, max_wait=1.0, sleep=lambda s: None))


def test_a_trickling_index_is_could_not_tell_after_the_time_limit(server, monkeypatch):
    ticks = iter(range(0, 10**6, public_index.MAX_SECONDS + 1))
    monkeypatch.setattr(public_index, "_clock", lambda: next(ticks))
    url = f"{server}/trickle"
    assert ask(url) == PackIndexAnswer(PACK, None, f"{url} took longer than {public_index.MAX_SECONDS} s to send "
                                                   "(1 bytes so far)", url)


def test_a_connection_broken_mid_body_is_could_not_tell(server):
    url = f"{server}/short"
    assert ask(url) == PackIndexAnswer(PACK, None, f"{url}: the connection broke while reading (ProtocolError)", url)
