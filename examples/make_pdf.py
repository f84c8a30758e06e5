"""Regenerate ``examples/corpus/incident-response.pdf`` (deterministic: reportlab invariant mode).

Usage: ``python examples/make_pdf.py [output.pdf]``. Running it twice gives identical bytes,
so the committed PDF only changes when this script's text changes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import StyleSheet1, getSampleStyleSheet
from reportlab.lib.units import cm
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

OUT = Path(__file__).resolve().parent / "corpus" / "incident-response.pdf"
TITLE = "Incident Response Procedure"
AUTHOR = "Security Operations, Northwind Robotics"

PAGE_1 = [
    ("h1", TITLE),
    ("p", "Document SEC-IRP-03, version 3.2, effective 1 March 2026. Owner: Jonas Brandt, Head "
          "of Security. This procedure applies to every security incident affecting Northwind "
          "Robotics systems, employee devices, or Tern robots and fleet software at customer "
          "sites."),
    ("h2", "1. What counts as an incident"),
    ("p", "An incident is any event that threatens the confidentiality, integrity or availability "
          "of our information or of a customer's operations: a lost laptop, a phishing email that "
          "someone clicked, malware, unauthorised access to the Fleet Console, leaked credentials, "
          "or a robot behaving in a way its firmware cannot explain. When in doubt, report it; a "
          "false alarm costs minutes, a late report can cost a customer's trust."),
    ("h2", "2. How to report"),
    ("p", "Report immediately in the Slack channel #security-incident, or call the 24/7 security "
          "on-call number +31 10 555 0166. Say what you saw, when, and which systems or robots "
          "are involved. Do not switch off an affected laptop; disconnect it from the network "
          "instead, so that memory evidence is kept."),
    ("h2", "3. Severity levels"),
    ("p", "The on-call engineer assigns a severity within the acknowledgement time. The severity "
          "decides who is involved and how fast."),
]
SEVERITY = [
    ["Severity", "Example", "Acknowledge within", "Update cadence"],
    ["SEV1", "Robots at a customer site under unauthorised control", "10 minutes", "every 30 min"],
    ["SEV2", "Confirmed account takeover, customer data exposed", "30 minutes", "every 2 hours"],
    ["SEV3", "Malware on one laptop, contained", "4 hours", "daily"],
    ["SEV4", "Phishing reported, nobody clicked", "1 working day", "at closure"],
]
PAGE_2 = [
    ("h2", "4. Roles"),
    ("p", "Incident commander: the security on-call engineer, until handed over in writing. "
          "The commander decides, delegates and keeps the timeline. Communications lead: for "
          "SEV1 and SEV2, a member of the management team who informs customers, staff and, "
          "where required, regulators. Scribe: records every action with a timestamp in the "
          "incident document created from the template in the Security drive."),
    ("h2", "5. Response steps"),
    ("p", "Step 1, contain: isolate affected devices, revoke sessions in Okta, and for robot "
          "incidents ask the site contact to press the emergency stop or pause the fleet from "
          "the Fleet Console. Step 2, assess: establish the scope, the systems and customers "
          "affected, and whether personal data is involved. Step 3, eradicate: remove the cause, "
          "rotate credentials and keys, reinstall affected machines from a clean image. Step 4, "
          "recover: restore service in stages and watch for recurrence for at least 72 hours."),
    ("h2", "6. Notification duties"),
    ("p", "If personal data is involved, the Data Protection Officer "
          "(dpo@northwind-robotics.example) must be told within 4 hours of the incident being "
          "confirmed, so that the Dutch Data "
          "Protection Authority can be notified within the legal 72-hour deadline. Customers "
          "whose robots or data are affected by a SEV1 or SEV2 incident are informed by the "
          "communications lead within 24 hours."),
]
PAGE_3 = [
    ("h2", "7. After the incident"),
    ("p", "Every SEV1 and SEV2 incident gets a blameless post-incident review within 5 working "
          "days of closure. The review records the timeline, what went well, what did not, and "
          "action items with owners and due dates. Action items are tracked in the SEC Jira "
          "project and reviewed monthly by the Head of Security."),
    ("h2", "8. Exercises"),
    ("p", "The Security team runs a tabletop exercise every quarter, alternating between an "
          "office IT scenario and a robot fleet scenario. Every incident commander on the "
          "on-call rota takes part in at least two exercises a year."),
    ("h2", "9. Contacts"),
    ("p", "Security on-call: +31 10 555 0166 (24/7). Fleet Operations Centre: +31 10 555 0177. "
          "IT service desk: +31 10 555 0199. Data Protection Officer: "
          "dpo@northwind-robotics.example."),
]


def _flowables(items: list[tuple[str, str]], styles: StyleSheet1) -> list[Paragraph]:
    style_of = {"h1": styles["Title"], "h2": styles["Heading2"], "p": styles["BodyText"]}
    return [Paragraph(text, style_of[kind]) for kind, text in items]


def build(out: Path = OUT) -> Path:
    """Write the PDF to ``out`` and return the path."""
    styles = getSampleStyleSheet()
    table = Table(SEVERITY, colWidths=[2.2 * cm, 7.3 * cm, 3.6 * cm, 3.0 * cm])
    table.setStyle(TableStyle([
        ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
        ("FONTSIZE", (0, 0), (-1, -1), 8.5),
        ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]))
    story = _flowables(PAGE_1, styles) + [Spacer(1, 0.3 * cm), table, PageBreak()]
    story += _flowables(PAGE_2, styles) + [PageBreak()] + _flowables(PAGE_3, styles)
    doc = SimpleDocTemplate(str(out), pagesize=A4, title=TITLE, author=AUTHOR,
                            subject="Security incident handling", invariant=1)
    doc.build(story)
    return out


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
