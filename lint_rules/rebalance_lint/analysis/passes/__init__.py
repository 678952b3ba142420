"""The passes that build one file's program model (:class:`~..model.Analysis`).

:class:`rebalance_lint.analysis.build.Builder` runs them over a :class:`.draft.Draft`, the
model under construction, in this order (each module's docstring says what it adds):

- :func:`~rebalance_lint.analysis.build.prepare`: :mod:`.listener_classes` (listener classes),
  then :mod:`.sites` (registrations: what each of the file's sites registers).
- repository mode, between prepare and finish: :mod:`.sites` again for sites of other files
  that register this file's definitions, and :mod:`.attributes_set` for attributes other
  files set on this file's listeners.
- ``finish``: :mod:`.attributes_set` (attributes set after construction),
  :mod:`.listener_methods` (callbacks from listener methods), :mod:`.helpers` (helpers
  followed), :mod:`.receivers` (what each callback calls a consumer), :mod:`.summaries`
  (effects).
- read off the finished draft: :mod:`.injections` (injected and indirect consumers).
"""
