import asyncio
import logging

import aiohttp

log = logging.getLogger(__name__)


class PushSender:
    def __init__(self, endpoint, token, concurrency=50):
        self.endpoint = endpoint
        self.token = token
        self._sem = asyncio.Semaphore(concurrency)
        self._session = None

    async def __aenter__(self):
        self._session = aiohttp.ClientSession(headers={"Authorization": f"Bearer {self.token}"})
        return self

    async def __aexit__(self, *exc):
        await self._session.close()

    async def send(self, notification):
        async with self._sem:
            async with self._session.post(self.endpoint, json=notification) as resp:
                if resp.status >= 500:
                    raise RuntimeError(f"push gateway {resp.status}")
                return resp.status
