import asyncio
import logging

import aiohttp

log = logging.getLogger(__name__)


class ClickHouseWriter:
    def __init__(self, url, table):
        self.url = url
        self.table = table
        self.rows = []
        self._session = None

    async def session(self):
        if self._session is None:
            self._session = aiohttp.ClientSession()
        return self._session

    async def flush(self):
        if not self.rows:
            return 0
        body = "\n".join(self.rows)
        query = f"INSERT INTO {self.table} FORMAT JSONEachRow"
        s = await self.session()
        async with s.post(self.url, params={"query": query}, data=body.encode()) as resp:
            resp.raise_for_status()
        n, self.rows = len(self.rows), []
        return n

    def flush_blocking(self, loop):
        return asyncio.run_coroutine_threadsafe(self.flush(), loop).result(timeout=60)
