"""(Moved: the embedded server keeps its pauses short too, see :mod:`truco.server.pauses`.)"""

from ..pauses import FREEZE_SECONDS, THAW_SECONDS, keep_pauses_short

__all__ = ["FREEZE_SECONDS", "THAW_SECONDS", "keep_pauses_short"]
