package hub

// searchWindow refuses a page beyond the first 1000 results, which GitHub's search never serves
// ("Only the first 1000 search results are available", 422).
func (c *ReqCtx) SearchWindow() *Reply {
	page, per := c.paging()
	if (page-1)*per >= 1000 {
		return ErrReply(422, "Only the first 1000 search results are available", "https://docs.github.com/v3/search/")
	}
	return nil
}
