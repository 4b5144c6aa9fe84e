"""The data layer: every SQL statement of the app (:mod:`.reads`, :mod:`.writes`) and the one write
path (:mod:`.writer`)."""

from app.repository.reads import ArchiveFilter, archive_page, archive_query

__all__ = ["ArchiveFilter", "archive_page", "archive_query"]
