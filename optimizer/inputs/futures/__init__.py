"""A scenario's futures as the user wrote them (issue 19), read, located and checked.

Takes sheet ``Futures``'s typed rows (``rows``) and a scenario file entry's
``futures:`` (``file``); hands on per scenario the
:class:`~optimizer.domain.futures.Futures` it is planned for, each part with
where it was given (``located``), attached to and checked against the resolved
scenario (``attach``), and the lines ``validate`` and ``solve`` say about them
(``notes``). Every problem names its file, sheet or line, and value.
"""
