import functools
import ipaddress

import geoip2.database


class GeoLookup:
    def __init__(self, mmdb_path):
        self.reader = geoip2.database.Reader(mmdb_path)

    @functools.lru_cache(maxsize=100_000)
    def country(self, ip):
        try:
            ipaddress.ip_address(ip)
            return self.reader.country(ip).country.iso_code
        except Exception:
            return None
