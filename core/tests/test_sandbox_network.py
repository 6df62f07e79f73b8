"""Attacks over the network, each run in the bubblewrap sandbox and shown to fail: TCP, UDP and
DNS out, and connections to listeners this test opens on the host's loopback (which must see
none). The sandbox has a network namespace of its own: its only interface is its own loopback.
"""

from __future__ import annotations

import socket
import textwrap

import pytest

from swift_gym.sandbox import SandboxLimits, run

pytestmark = pytest.mark.usefixtures("bwrap")
LIMITS = SandboxLimits(wall_seconds=20)


async def test_tcp_udp_and_dns_out_all_fail() -> None:
    code = textwrap.dedent(
        """
        import socket
        for host, port in [("1.1.1.1", 443), ("8.8.8.8", 53), ("93.184.216.34", 80)]:
            try:
                socket.create_connection((host, port), timeout=2)
                print("TCP CONNECTED", host)
            except OSError as error:
                print("tcp refused", host, type(error).__name__)
        for host in ["8.8.8.8", "1.1.1.1"]:
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                udp.sendto(b"x", (host, 53))
                print("UDP SENT", host)
            except OSError as error:
                print("udp refused", host, type(error).__name__)
        for name in ["example.com", "pypi.org", "localhost"]:
            try:
                print("DNS RESOLVED", name, socket.getaddrinfo(name, 80)[0][4])
            except OSError as error:
                print("dns failed", name, type(error).__name__)
        import os
        print("interfaces", sorted(name for _, name in socket.if_nameindex()))
        """
    )
    result = await run(code, LIMITS)
    assert result.exit_code == 0, result
    assert "CONNECTED" not in result.stdout and "SENT" not in result.stdout
    assert result.stdout.count("tcp refused") == 3
    assert result.stdout.count("udp refused") == 2
    assert "DNS RESOLVED example.com" not in result.stdout
    assert "DNS RESOLVED pypi.org" not in result.stdout
    assert "interfaces ['lo']" in result.stdout


async def test_listeners_on_the_hosts_loopback_see_no_connection() -> None:
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(16)
    tcp.setblocking(False)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    tcp6 = None
    if socket.has_ipv6:
        try:
            tcp6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            tcp6.bind(("::1", 0))
            tcp6.listen(16)
            tcp6.setblocking(False)
        except OSError:
            tcp6 = None
    ports = [tcp.getsockname()[1], udp.getsockname()[1], tcp6.getsockname()[1] if tcp6 else 0]
    code = textwrap.dedent(
        f"""
        import socket
        tcp_port, udp_port, tcp6_port = {ports!r}
        for host in ["127.0.0.1", "localhost", "0.0.0.0", "127.0.1.1"]:
            try:
                socket.create_connection((host, tcp_port), timeout=2)
                print("TCP CONNECTED", host)
            except OSError as error:
                print("tcp refused", host, type(error).__name__)
        if tcp6_port:
            try:
                socket.create_connection(("::1", tcp6_port), timeout=2)
                print("TCP6 CONNECTED")
            except OSError as error:
                print("tcp6 refused", type(error).__name__)
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for _ in range(5):
            try:
                udp.sendto(b"hello host", ("127.0.0.1", udp_port))
            except OSError as error:
                print("udp refused", type(error).__name__)
        print("done")
        """
    )
    try:
        result = await run(code, LIMITS)
        assert "done" in result.stdout, result
        assert "CONNECTED" not in result.stdout
        with pytest.raises(BlockingIOError):
            tcp.accept()  # nothing ever connected to the host's listener
        if tcp6 is not None:
            with pytest.raises(BlockingIOError):
                tcp6.accept()
        with pytest.raises(BlockingIOError):
            udp.recvfrom(100)  # no datagram reached the host
    finally:
        for sock in (tcp, udp, tcp6):
            if sock is not None:
                sock.close()


async def test_unix_sockets_of_the_host_are_not_there() -> None:
    code = textwrap.dedent(
        """
        import os, socket
        for path in ["/run/docker.sock", "/var/run/docker.sock", "/run/dbus/system_bus_socket",
                     "/tmp/.X11-unix/X0", "/run/systemd/private"]:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(path)
                print("UNIX CONNECTED", path)
            except OSError as error:
                print("unix refused", path, type(error).__name__)
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect("\\0/tmp/.X11-unix/X0")  # an abstract socket lives in the net namespace
            print("ABSTRACT CONNECTED")
        except OSError as error:
            print("abstract refused", type(error).__name__)
        """
    )
    result = await run(code, LIMITS)
    assert result.exit_code == 0, result
    assert "CONNECTED" not in result.stdout
    assert result.stdout.count("refused") == 6
