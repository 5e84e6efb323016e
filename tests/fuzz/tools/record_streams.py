#!/usr/bin/env python3
"""Records what rank processes send to a session, to seed the fuzz_session corpus.

Inside `seer run`, start it on the session's socket, then run the program with SEER_SOCKET
pointing at the proxy (make_seeds.sh does this):

    record_streams.py "$SEER_SOCKET" PROXY_SOCKET OUT_DIR &
    SEER_SOCKET=PROXY_SOCKET program

Every connection is forwarded both ways; the bytes a client sends are written to
OUT_DIR/client-N.bin when it closes. The proxy exits after a second without connections.
"""
import os
import socket
import sys
import threading


def pump(src, dst, record):
    while True:
        try:
            data = src.recv(65536)
        except OSError:
            data = b""
        if not data:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            return
        if record is not None:
            record.append(data)
        try:
            dst.sendall(data)
        except OSError:
            return


def serve(client, upstream_path, out_path):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    upstream.connect(upstream_path)
    sent = []
    back = threading.Thread(target=pump, args=(upstream, client, None), daemon=True)
    back.start()
    pump(client, upstream, sent)
    back.join(timeout=5)
    with open(out_path, "wb") as f:
        f.write(b"".join(sent))


def main():
    upstream_path, proxy_path, out_dir = sys.argv[1:4]
    os.makedirs(out_dir, exist_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(proxy_path)
    listener.listen(64)
    listener.settimeout(1.0)
    threads = []
    while True:
        try:
            client, _ = listener.accept()
        except socket.timeout:
            if threads and not any(t.is_alive() for t in threads):
                break
            continue
        out = os.path.join(out_dir, "client-%d.bin" % len(threads))
        t = threading.Thread(target=serve, args=(client, upstream_path, out))
        t.start()
        threads.append(t)
    os.unlink(proxy_path)


if __name__ == "__main__":
    main()
