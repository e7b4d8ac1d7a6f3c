"""The Knowledge graph tab: ``tab`` (the frame; it loads the library's graph into ``state``),
``extraction`` (the graph's state, start and cancel), ``entity_list`` (the paged entity list),
``panel`` (the selected entity: locks, relations, evidence), ``picture`` (its neighbourhood),
``edits`` (the edit actions) with their ``dialogs`` and the ``ontology`` editor, and ``texts``
(how the graph's things read)."""
