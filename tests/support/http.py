"""One keep-alive HTTP/1.1 connection to a loopback server, as a browser's ``fetch()`` keeps it:
for the benchmarks' and tests' students asking their room's pulse (classroom/pulse.py)."""

import asyncio
from urllib.parse import urlsplit


class Connection:
    def __init__(self, base: str, cookie: str = ""):
        address = urlsplit(base)
        self.host, self.port, self.cookie = address.hostname, address.port, cookie
        self.reader = self.writer = None

    async def get(self, path: str) -> tuple[int, bytes]:
        """(status, body) of GET ``path``; reconnects once if the server closed the connection."""
        for attempt in (1, 2):
            try:
                return await self._get(path)
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _get(self, path: str) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        cookie = f"Cookie: {self.cookie}\r\n" if self.cookie else ""
        request = f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n{cookie}\r\n"
        self.writer.write(request.encode())
        line = await self.reader.readline()
        if not line:  # the server closed the kept connection
            raise ConnectionError("closed")
        status = int(line.split()[1])
        headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        body = await self.reader.readexactly(int(headers["content-length"]))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, body

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None
