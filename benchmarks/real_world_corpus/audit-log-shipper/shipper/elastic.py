import logging

from elasticsearch import Elasticsearch, helpers

log = logging.getLogger(__name__)


class AuditIndex:
    def __init__(self, hosts, index_prefix="audit"):
        self.es = Elasticsearch(hosts)
        self.prefix = index_prefix

    def bulk(self, docs):
        actions = ({"_index": f"{self.prefix}-{d['date']}", "_source": d} for d in docs)
        ok, errors = helpers.bulk(self.es, actions, raise_on_error=False)
        if errors:
            log.error("%d audit docs rejected", len(errors))
        return ok
