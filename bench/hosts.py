"""TSBS hosts: each has fixed tags, drawn once from the seed."""

from __future__ import annotations

import random
from dataclasses import dataclass

from bench.schema import (
    ARCHES,
    ENVIRONMENTS,
    MEASUREMENT,
    OS_NAMES,
    RACKS,
    REGIONS,
    SERVICE_VERSIONS,
    SERVICES,
    TAGS,
    TEAMS,
)


@dataclass(frozen=True)
class Host:
    """One TSBS host and its static tags."""

    index: int
    tags: dict[str, str]

    def line_prefix(self) -> str:
        """``cpu,hostname=...,region=...`` in TSBS tag order (values need no escaping)."""
        return MEASUREMENT + "".join(f",{name}={self.tags[name]}" for name in TAGS)


def make_hosts(count: int, seed: int) -> list[Host]:
    """Hosts with TSBS tag values, drawn from ``seed``."""
    rng = random.Random(seed)
    hosts = []
    for index in range(count):
        region, datacenters = REGIONS[rng.randrange(len(REGIONS))]
        tags = {
            "hostname": f"host_{index}",
            "region": region,
            "datacenter": datacenters[rng.randrange(len(datacenters))],
            "rack": str(rng.randrange(RACKS)),
            "os": OS_NAMES[rng.randrange(len(OS_NAMES))],
            "arch": ARCHES[rng.randrange(len(ARCHES))],
            "team": TEAMS[rng.randrange(len(TEAMS))],
            "service": str(rng.randrange(SERVICES)),
            "service_version": str(rng.randrange(SERVICE_VERSIONS)),
            "service_environment": ENVIRONMENTS[rng.randrange(len(ENVIRONMENTS))],
        }
        hosts.append(Host(index, tags))
    return hosts
