"""What every definition model shares: strictness and knowing where it came from."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, PrivateAttr

KEBAB = r"^[a-z0-9]+(-[a-z0-9]+)*$"


@dataclass(frozen=True)
class Origin:
    """The file (as displayed) and the 1-based line a definition starts on."""

    path: str
    line: int


IN_MEMORY = Origin("<memory>", 0)


class Definition(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    # None, not an Origin: pydantic deep-copies a private default into every instance
    _origin: Origin | None = PrivateAttr(default=None)

    @property
    def origin(self) -> Origin:
        return self._origin or IN_MEMORY

    def located(self, origin: Origin) -> Definition:
        self._origin = origin
        return self
