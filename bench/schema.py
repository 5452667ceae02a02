"""The TSBS "cpu-only" schema (timescale/tsbs, devops use case): measurement
``cpu``, ten tags that are fixed per host, ten float fields."""

from __future__ import annotations

MEASUREMENT = "cpu"

TAGS: tuple[str, ...] = (
    "hostname",
    "region",
    "datacenter",
    "rack",
    "os",
    "arch",
    "team",
    "service",
    "service_version",
    "service_environment",
)

FIELDS: tuple[str, ...] = (
    "usage_user",
    "usage_system",
    "usage_idle",
    "usage_nice",
    "usage_iowait",
    "usage_irq",
    "usage_softirq",
    "usage_steal",
    "usage_guest",
    "usage_guest_nice",
)

REGIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("us-east-1", ("us-east-1a", "us-east-1b", "us-east-1c", "us-east-1e")),
    ("us-west-1", ("us-west-1a", "us-west-1b")),
    ("us-west-2", ("us-west-2a", "us-west-2b", "us-west-2c")),
    ("eu-west-1", ("eu-west-1a", "eu-west-1b", "eu-west-1c")),
    ("eu-central-1", ("eu-central-1a", "eu-central-1b")),
    ("ap-southeast-1", ("ap-southeast-1a", "ap-southeast-1b")),
    ("ap-southeast-2", ("ap-southeast-2a", "ap-southeast-2b")),
    ("ap-northeast-1", ("ap-northeast-1a", "ap-northeast-1c")),
    ("sa-east-1", ("sa-east-1a", "sa-east-1b", "sa-east-1c")),
)

OS_NAMES: tuple[str, ...] = ("Ubuntu16.10", "Ubuntu16.04LTS", "Ubuntu15.10")
ARCHES: tuple[str, ...] = ("x64", "x86")
TEAMS: tuple[str, ...] = ("SF", "NYC", "LON", "CHI")
ENVIRONMENTS: tuple[str, ...] = ("production", "staging", "test")
RACKS = 100  # "0".."99"
SERVICES = 20  # "0".."19"
SERVICE_VERSIONS = 2  # "0".."1"

# TSBS starts at 2016-01-01T00:00:00Z and logs every host every 10 s.
TSBS_START_NS = 1_451_606_400_000_000_000
INTERVAL_NS = 10_000_000_000
# Field values are random walks in [0, 100].
FIELD_MAX = 100
