"""The shared table model (widgets/table_model) passes pytest-qt's model tester with the columns
of every table that uses it."""

from __future__ import annotations

from typing import Any

import pytest

from goodbuddy_kb.ui.documents.tab import DOCUMENT_COLUMNS, SOURCE_COLUMNS
from goodbuddy_kb.ui.tasks.tab import TASK_COLUMNS
from goodbuddy_kb.ui.widgets.table_model import RowsModel
from goodbuddy_kb.ui.workbench.results import RESULT_COLUMNS


@pytest.mark.parametrize(
    "columns", [SOURCE_COLUMNS, DOCUMENT_COLUMNS, TASK_COLUMNS, RESULT_COLUMNS]
)
def test_table_models_pass_the_model_tester(qtmodeltester: Any, columns: Any) -> None:
    model: RowsModel[Any] = RowsModel(columns)
    qtmodeltester.check(model, force_py=False)
