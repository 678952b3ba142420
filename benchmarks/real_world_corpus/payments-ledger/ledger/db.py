from contextlib import contextmanager

from sqlalchemy import create_engine
from sqlalchemy.orm import sessionmaker

_engine = None
_Session = None


def init(url):
    global _engine, _Session
    _engine = create_engine(url, pool_pre_ping=True)
    _Session = sessionmaker(bind=_engine)


@contextmanager
def session_scope():
    session = _Session()
    try:
        yield session
        session.commit()
    except Exception:
        session.rollback()
        raise
    finally:
        session.close()
