"""The study on top of the general tool: reproducing "Multi-label Classification using Labels as Hidden Nodes".

It runs the paper's configs (:mod:`.reproduction`) under the base-learner settings of
``configs/sensitivity.yaml`` (:mod:`.settings`, the primary one named by :mod:`.primary_setting`),
reads what the runs stored (:mod:`.evidence`, :mod:`.refits`), decides the paper's claims as pure
functions of that evidence (:mod:`.claims`, across settings :mod:`.sensitivity_section`), audits
the paper's own numbers (:mod:`.audit`), explains every deviation from them (:mod:`.reference`,
:mod:`.deviations`), cross-checks BR, CC and LP against other libraries (:mod:`.crosscheck`) and
writes REPORT.md (:mod:`.summary`, :mod:`.sections`, :mod:`.report_md`) and its page
(:mod:`.html_page`). It uses the general half (data, methods, experiment, report); nothing there
imports it.
"""
