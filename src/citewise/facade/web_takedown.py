"""Takedown of a web address for HTTP and MCP callers (issue 38): ``admin`` on every
knowledge base, under the write lock.

Web snapshots are kept per home and serve every base's verification, so withholding one
is a home-wide act: a key limited to some bases may not do it (FORBIDDEN). The acts are
``governance/web_withhold.py``'s.
"""

from __future__ import annotations

from typing import Any

from citewise.errors import Forbidden
from citewise.facade.base import ServiceBase
from citewise.facade.caller import Caller
from citewise.facade.roles import require
from citewise.governance.web_withhold import lift_url_takedown, take_down_url


class WebTakedowns(ServiceBase):
    """``web_takedown`` / ``web_untakedown`` (see the module docstring)."""

    def web_takedown(self, caller: Caller, url: str, reason: str) -> dict[str, Any]:
        self._home_admin(caller, "taking a web address down")
        with self.lock.write():
            done = take_down_url(
                self.home.store, self.home.settings.home, url, reason, by=caller.principal
            )
        return done.to_json()

    def web_untakedown(self, caller: Caller, url: str, reason: str) -> dict[str, Any]:
        self._home_admin(caller, "lifting a web takedown")
        with self.lock.write():
            done = lift_url_takedown(
                self.home.store, self.home.settings.home, url, reason, by=caller.principal
            )
        return done.to_json()

    @staticmethod
    def _home_admin(caller: Caller, doing: str) -> None:
        require(caller, "admin", doing)
        if not caller.all_kbs:
            raise Forbidden(
                f"{doing.capitalize()} affects every knowledge base of the home; this key "
                "may use only some.",
                hint="Use an admin key for all bases ('citewise keys add --role admin').",
            )
