"""The evaluation tiers (paper section 4), as plain constants: cheap to import (the CLI parses them
at start-up).

T1 parametric, T2 reasoning, T1-o oracle with the gold triples as raw, structured or verbalized
text, T3a agentic with KG retrieval tools, T3-o agentic oracle (triples injected, no retrieval).
:mod:`prompts` renders them.
"""

T1 = "T1"
T2 = "T2"
T1O_RAW = "T1-o-raw"
T1O_STRUCTURED = "T1-o-structured"
T1O_VERBALIZED = "T1-o-verbalized"
T3A = "T3a"
T3O = "T3-o"
TIERS = (T1, T2, T1O_RAW, T1O_STRUCTURED, T1O_VERBALIZED, T3A, T3O)
ORACLE_TIERS = (T1O_RAW, T1O_STRUCTURED, T1O_VERBALIZED, T3O)  #: tiers that see the gold triples
AGENT_TIERS = (T3A, T3O)
