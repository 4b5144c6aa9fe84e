"""The data layer: every SQL statement of the app (:mod:`.reads`, :mod:`.writes`, and per area
:mod:`.archive`, :mod:`.accounts`...) and the one write path (:mod:`.writer`)."""

from app.repository.archive import ArchiveFilter, archive_page, archive_query

__all__ = ["ArchiveFilter", "archive_page", "archive_query"]
