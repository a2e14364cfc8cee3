"""A TCP proxy a fault test puts between one process and its database, to cut that process
alone off the network (``cut``: every open connection reset, new ones refused) and let it back
(``mend``), while other processes reach the same server directly."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading

from tests.server_process import free_port


class TcpProxy:
    def __init__(self, target_port: int, *, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._cut = False
        self._closed = False
        threading.Thread(target=self._accept, daemon=True, name="tcp-proxy").start()

    def cut(self) -> None:
        """Reset every connection through the proxy and refuse new ones until ``mend``."""
        with self._lock:
            self._cut = True
            sockets, self._open = self._open, set()
        for sock in sockets:
            _reset(sock)

    def mend(self) -> None:
        with self._lock:
            self._cut = False

    def close(self) -> None:
        self._closed = True
        self.cut()
        self._listener.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                refused = self._cut
            if refused:
                _reset(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                _reset(client)
                continue
            upstream.settimeout(None)
            with self._lock:
                if self._cut:
                    _reset(client)
                    _reset(upstream)
                    continue
                self._open.update((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                self._open.discard(source)
                self._open.discard(sink)
            _reset(sink)
            _reset(source)


def _reset(sock: socket.socket) -> None:
    """Close with a reset (SO_LINGER 0), as a dead peer looks to the other end, not an orderly
    goodbye. The shutdown first wakes the pump blocked reading it."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
