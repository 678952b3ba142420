"""Shared analysis for the KRB rules: imports, consumers, listeners, callbacks and effects.

Built once per file (:func:`rebalance_lint.analysis.build.analyse`, which runs the passes of
:mod:`.passes`: listeners, registrations, callbacks, helpers, receivers, effects, injections),
or for the files of one repository together (:mod:`rebalance_lint.repository`:
:func:`~.build.prepare` every file, link the sites whose listener or callbacks live in other
files, then finish each one); every rule reads it. Each callback carries its effect summary
(:mod:`.effects`): what it does to a consumer, directly or through calls on other objects.
"""
