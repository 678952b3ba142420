"""Start (or join) the SparkSession the scan runs on."""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


# Nothing from the JVM reaches the console: the scan prints its own progress, and a failed
# job its own one-line error (instead of Java stack traces).
QUIET_LOG4J2 = """\
rootLogger.level = fatal
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
"""


def _quiet_log_config() -> str:
    handle, path = tempfile.mkstemp(prefix="rebalance-scan-log4j2-", suffix=".properties")
    with os.fdopen(handle, "w") as config:
        config.write(QUIET_LOG4J2)
    return path


def spark_session(master: str | None = None) -> SparkSession:
    """Join spark-submit's session, or start an embedded one (``local[*]`` unless ``master``).

    When we launch the JVM ourselves, Python workers run this interpreter, so executors
    import the same installed ``rebalance_lint`` and ``rebalance_codemods`` as the driver.
    """
    warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("rebalance-guard scan").config(
        "spark.ui.showConsoleProgress", "false"
    )
    log_config = None
    if "PYSPARK_GATEWAY_PORT" not in os.environ:  # not under spark-submit: we start the JVM
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        if master is None or master.startswith("local"):
            os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # no "resolves to loopback"
        log_config = _quiet_log_config()
        builder = builder.config(
            "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={log_config}"
        )
    if master:
        builder = builder.master(master)
    try:
        spark = builder.getOrCreate()
    finally:
        if log_config is not None:
            os.unlink(log_config)  # read once, when the JVM started
    spark.sparkContext.setLogLevel("FATAL")
    return spark
