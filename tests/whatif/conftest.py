import pytest


@pytest.fixture(autouse=True)
def no_history_left_over(transactional_db):
    """Start with an empty history. Django empties the tables after each transactional test,
    the ledger too, and on SQLite each ledger row deleted then is recorded as a release by the
    history's trigger: without this, those releases would be in the next test's period."""
    from quotaweb.allocations.models import HistoryEvent

    HistoryEvent.objects.all().delete()
