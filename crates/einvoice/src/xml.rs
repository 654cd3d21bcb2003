//! A thin writer over quick-xml: elements in the order the schemas require, text always
//! escaped by quick-xml (markup, `]]>`, emoji and every script stay well-formed).

use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;

pub(crate) struct Xml {
    w: Writer<Vec<u8>>,
}

impl Xml {
    pub fn new() -> Xml {
        let mut w = Writer::new(Vec::with_capacity(16 * 1024));
        // Writing into a Vec cannot fail.
        let _ = w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
        Xml { w }
    }

    pub fn open(&mut self, name: &str, attrs: &[(&str, &str)]) {
        let mut start = BytesStart::new(name);
        for attr in attrs {
            start.push_attribute(*attr);
        }
        let _ = self.w.write_event(Event::Start(start));
    }

    pub fn close(&mut self, name: &str) {
        let _ = self.w.write_event(Event::End(BytesEnd::new(name)));
    }

    /// `<name attrs>text</name>`.
    pub fn leaf_with(&mut self, name: &str, attrs: &[(&str, &str)], text: &str) {
        self.open(name, attrs);
        let _ = self.w.write_event(Event::Text(BytesText::new(text)));
        self.close(name);
    }

    pub fn leaf(&mut self, name: &str, text: &str) {
        self.leaf_with(name, &[], text);
    }

    /// A leaf only when there is a value.
    pub fn opt(&mut self, name: &str, text: Option<&str>) {
        if let Some(text) = text {
            self.leaf(name, text);
        }
    }

    pub fn finish(self) -> Vec<u8> {
        self.w.into_inner()
    }
}
