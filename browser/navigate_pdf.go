package browser

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// pdfDeadline bounds rendering and printing one document.
const pdfDeadline = 30 * time.Second

// PrintPDF renders source in a pooled tab and prints it to PDF (A4-ish,
// backgrounds on, CSS page size honoured). source is an http(s) URL or a
// complete HTML document; HTML should be self-contained, since it is shown
// on about:blank and images are blocked.
func (p *Pool) PrintPDF(ctx context.Context, source string) (pdf []byte, err error) {
	ctx, cancel := context.WithTimeout(ctx, pdfDeadline)
	defer cancel()
	tab, err := p.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("print PDF: %w", err)
	}
	// A tab that failed to print is in doubt and is replaced.
	defer func() { p.Release(tab, err) }()
	pdf, err = tab.printPDF(ctx, source)
	if err != nil {
		return nil, fmt.Errorf("print PDF: %w", err)
	}
	return pdf, nil
}

func (t *Tab) printPDF(ctx context.Context, source string) ([]byte, error) {
	t.styles.Store(true)
	defer t.styles.Store(false)
	if strings.HasPrefix(source, "http://") || strings.HasPrefix(source, "https://") {
		if _, err := t.render(ctx, source); err != nil {
			return nil, err
		}
	} else {
		page := t.page.Context(ctx)
		t.beginNav()
		if _, err := (proto.PageNavigate{URL: "about:blank"}).Call(page); err != nil {
			return nil, fmt.Errorf("open blank page: %w", err)
		}
		if err := (proto.PageSetDocumentContent{FrameID: proto.PageFrameID(t.target), HTML: source}).Call(page); err != nil {
			return nil, fmt.Errorf("set document: %w", err)
		}
		sctx, scancel := context.WithTimeout(ctx, settleMax)
		_ = t.settle(sctx)
		scancel()
	}
	res, err := proto.PagePrintToPDF{
		PrintBackground:   true,
		PreferCSSPageSize: true,
	}.Call(t.page.Context(ctx))
	if err != nil {
		return nil, err
	}
	return res.Data, nil
}
