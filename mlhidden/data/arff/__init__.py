"""Multi-label ARFF files: MEKA's and Mulan's forms read, MEKA's written.

MEKA marks the labels in the relation name: ``@relation 'Name: -C N'`` means the first N
attributes are labels, ``-C -N`` the last N. :mod:`.read` drives the reading, and each job has
one module: the (compressed) text streamed in blocks of lines with an expansion cap (:mod:`.stream`),
names and values split as Weka's tokenizer splits them (:mod:`.tokens`), the header's structure
(:mod:`.lines`, parsed by liac-arff), data rows (:mod:`.rows`; blocks of plain rows at C speed,
:mod:`.plain`), failures in the user's terms (:mod:`.diagnosis`), MEKA's label convention
(:mod:`.meka`), Mulan's label files and the ARFF files beside them (:mod:`.mulan`), values to ``X`` and ``Y``
(:mod:`.encode`) and writing (:mod:`.write`).
"""

from mlhidden.data.arff.read import READER_VERSION, read_arff
from mlhidden.data.arff.write import write_arff

__all__ = ["READER_VERSION", "read_arff", "write_arff"]
