//! Actions by ref or selector: resolve -> actionability -> input.
