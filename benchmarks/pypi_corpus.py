"""The migration measured on real code: published PyPI packages that use Kafka consumers.

Usage: ``python benchmarks/pypi_corpus.py [--cache DIR] [--sites] [--list]``

This is real, published code (libraries, frameworks, their tests and examples), measured
unchanged: each pinned package (exact version, as an sdist or a wheel) is downloaded with
``python -m pip download --no-deps``, extracted into ``<cache>/src/<name>-<version>/`` and
measured as one repository by the same report as
``benchmarks/migration_refusals.py --each-subdirectory <cache>/src`` (its ``main()``, so the
figures mean the same; ``--sites`` is passed on). Nothing of it is committed: the cache
(default ``benchmarks/.pypi-corpus/``) is git-ignored; a second run reuses the downloads and
extractions in it.

The packages were chosen because they use a Kafka client's consumer: the clients themselves
(kafka-python, aiokafka, confluent-kafka, afkak), stream-processing frameworks and the
plugins and services built on them. They are not a sample of applications: most register
rebalance callbacks inside a framework layer, which is where a migration is hardest.

A download that fails prints a line naming the package and the run goes on; the last line
says how many of the listed packages were measured. Exit code: migration_refusals' (1 when a
migration is broken or not idempotent; a file whose input does not parse is reported as
unreadable input, not as broken), 2 when no package could be measured at all.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Literal, NamedTuple

HERE = Path(__file__).resolve().parent
DEFAULT_CACHE = HERE / ".pypi-corpus"


class Package(NamedTuple):
    name: str
    version: str
    format: Literal["sdist", "wheel"]

    @property
    def directory(self) -> str:
        return f"{self.name}-{self.version}"


def _pins(kind: Literal["sdist", "wheel"], pins: str) -> list[Package]:
    """``name version`` per line, all in the format ``kind``."""
    found: list[Package] = []
    for pin in pins.strip().splitlines():
        name, version = pin.split()
        found.append(Package(name, version, kind))
    return found


#: Each pin downloaded in its format on 2026-11-25 (CPython 3.11, manylinux x86_64, for the
#: wheels that are platform-specific: aiokafka, bytewax, faust-streaming).
PACKAGES: list[Package] = _pins(
    "sdist",
    """
    sentry-arroyo 2.48.0
    wunderkafka 0.23.0
    fluvii 1.1.1
    confluent-kafka 2.16.1
    kafka-python 3.0.12
    ktables 2.0.0
    kombu 5.7.0
    streamz 0.6.6
    apache-airflow-providers-apache-kafka 2.1.0
    django-kafka 5.1.2
    taskiq-aio-kafka 1.0.0
    nameko-kafka 0.2.1
    ace-concurrency 0.1.1
    mode-streaming 0.7.1
    aiokafka-foundation-kit 0.2.0
    confluent-kafka-helpers 0.10.5
    aiokafka-rpc 1.3.0
    batching-kafka-consumer 0.0.5
    """,
) + _pins(
    "wheel",
    """
    quixstreams 3.28.1
    faust-streaming 0.15.3
    faststream 0.7.8
    kafkaesk 0.8.7
    aiokafka 0.14.0
    bytewax 0.21.1
    esque 0.5.1
    kafka-utils 4.1.0
    pyctuator 1.2.0
    afkak 21.5.0.post0
    aio-kafka-daemon 1.0.11
    aioworkers-kafka 0.2.0
    amgi-aiokafka 0.51.0
    ampel-kafka 0.10.0a4
    benzene-kafka 0.1.0b2
    babamul 0.2.0
    bluesky-kafka 0.10.0
    edx-event-bus-kafka 6.1.0
    kafka-overwatch 0.5.0.post0
    kafka-python-ng 2.2.3
    opentelemetry-instrumentation-confluent-kafka 0.66b1
    """,
)


class DownloadError(Exception):
    pass


def download(package: Package, downloads: Path) -> Path:
    """The package's archive in ``downloads/<name>-<version>/``, fetched by pip unless there."""
    target = downloads / package.directory
    archives = sorted(p for p in target.glob("*") if p.is_file()) if target.is_dir() else []
    if len(archives) == 1:
        return archives[0]
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    binary = ["--no-binary", ":all:"] if package.format == "sdist" else ["--only-binary", ":all:"]
    command = [sys.executable, "-m", "pip", "download", "--no-deps", *binary,
               "--disable-pip-version-check", "--no-input", "--progress-bar", "off",
               "--dest", str(target), f"{package.name}=={package.version}"]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    except subprocess.TimeoutExpired as error:
        raise DownloadError("pip download timed out") from error
    archives = sorted(p for p in target.glob("*") if p.is_file())
    if done.returncode != 0 or len(archives) != 1:
        output = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()
        shutil.rmtree(target, ignore_errors=True)
        raise DownloadError(f"pip exited with {done.returncode}: {output[-1]}")
    return archives[0]


def _inside(root: Path, name: str) -> bool:
    """Whether the archive member ``name`` lands inside ``root`` (no absolute or .. paths)."""
    if not name or name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return False
    return (root / name).resolve().is_relative_to(root.resolve())


def extract(archive: Path, target: Path, scratch: Path) -> None:
    """``archive`` unpacked into ``target`` (created only once it is complete); an sdist's
    single top-level folder is taken off. Members that would land outside are refused."""
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    if archive.name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tar")):
        with tarfile.open(archive) as tar:
            tar.extractall(scratch, filter="data")  # refuses absolute paths, .. and outside links
    elif archive.suffix in {".whl", ".zip"}:
        with zipfile.ZipFile(archive) as wheel:
            for member in wheel.infolist():
                if not _inside(scratch, member.filename):
                    raise ValueError(f"{archive.name}: {member.filename} lands outside")
                wheel.extract(member, scratch)
    else:
        raise ValueError(f"{archive.name}: not a tar.gz, zip or wheel")
    entries = list(scratch.iterdir())
    top = entries[0] if len(entries) == 1 and entries[0].is_dir() else scratch
    target.parent.mkdir(parents=True, exist_ok=True)
    top.rename(target)
    shutil.rmtree(scratch, ignore_errors=True)


def prepare(cache: Path) -> tuple[Path, list[Package]]:
    """Every pinned package downloaded and extracted under ``cache``; the ones that failed."""
    source = cache / "src"
    source.mkdir(parents=True, exist_ok=True)
    failed: list[Package] = []
    for package in PACKAGES:
        target = source / package.directory
        if target.is_dir():
            continue  # extracted by an earlier run
        try:
            archive = download(package, cache / "downloads")
            extract(archive, target, cache / "tmp" / package.directory)
        except (DownloadError, OSError, ValueError, tarfile.TarError, zipfile.BadZipFile) as error:
            print(f"FAILED: {package.name} {package.version} ({package.format}): {error}; "
                  "left out of the measurement", flush=True)  # fmt: skip
            failed.append(package)
            continue
        print(f"extracted {package.name} {package.version} ({package.format}): {archive.name}",
              flush=True)  # fmt: skip
    wanted = {package.directory for package in PACKAGES}
    for stale in sorted(p for p in source.iterdir() if p.name not in wanted):
        # the measurement takes every subdirectory: an extraction of an older pin would count
        print(f"removed {stale} (not in the pinned list)", flush=True)
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale)
        else:
            stale.unlink()
    return source, failed


def _shown(path: Path) -> Path:
    """``path`` relative to the working directory when it is inside it (shorter report lines)."""
    here = Path.cwd().resolve()
    return Path(os.path.relpath(path, here)) if path.is_relative_to(here) else path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=None,
                        help=f"downloads and extractions (default: {DEFAULT_CACHE})")  # fmt: skip
    parser.add_argument("--sites", action="store_true",
                        help="also one line per KRB201-203 site and per package")  # fmt: skip
    parser.add_argument("--list", action="store_true", help="print the pinned list and exit")
    args = parser.parse_args(argv)
    if args.list:
        for package in PACKAGES:
            print(f"{package.name} {package.version} {package.format}")
        return 0
    source, failed = prepare(args.cache or _shown(DEFAULT_CACHE))
    measured = len(PACKAGES) - len(failed)
    status = 2
    if measured:
        sys.path.insert(0, str(HERE))
        refusals = importlib.import_module("migration_refusals")
        sites = ["--sites"] if args.sites else []
        status = refusals.main(["--each-subdirectory", *sites, str(source)])
    left_out = "".join(f"; not measured: {p.name} {p.version} ({p.format})" for p in failed)
    print(f"packages: {measured} measured of {len(PACKAGES)} listed{left_out}")
    return int(status)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
