"""Start (or join) the SparkSession the scan runs on."""

from __future__ import annotations

import os
import sys
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def spark_session(master: str | None = None) -> SparkSession:
    """Join spark-submit's session, or start an embedded one (``local[*]`` unless ``master``).

    When we launch the JVM ourselves, Python workers run this interpreter, so executors
    import the same installed ``rebalance_lint`` and ``rebalance_codemods`` as the driver.
    """
    if "PYSPARK_GATEWAY_PORT" not in os.environ:  # not under spark-submit
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("rebalance-guard scan").config(
        "spark.ui.showConsoleProgress", "false"
    )
    if master:
        builder = builder.master(master)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
